package server

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// ExplainPolicy says what the policy does for a group: the Explainer's
// answer for the group, protocol name and caller an Assign call would
// present. The caller is the one this call's client certificate proves,
// unless the request names another: explaining reveals the policy, not
// anyone's assignment, and operators need to see what a group's leader
// gets without holding its key.
func (s *service) ExplainPolicy(ctx context.Context, req *assigndv1.ExplainPolicyRequest) (*assigndv1.ExplainPolicyResponse, error) {
	resp, err := s.explainPolicy(ctx, req)
	if err != nil {
		return nil, toStatus(err)
	}
	return resp, nil
}

func (s *service) explainPolicy(ctx context.Context, req *assigndv1.ExplainPolicyRequest) (*assigndv1.ExplainPolicyResponse, error) {
	if s.explainer == nil {
		return nil, errNoExplainer
	}
	caller := callerFromContext(ctx)
	if c := req.GetCaller(); c != nil {
		caller = Caller{Subject: c.GetSubject(), CommonName: c.GetCommonName()}
	}
	e, err := s.explainer.ExplainPolicy(ctx, Query{GroupID: req.GetGroupId(), ProtocolName: req.GetProtocolName(), Caller: caller})
	switch {
	case errors.Is(err, ErrUnknownProtocol):
		return nil, unknownProtocol(err)
	case err != nil:
		s.logger.ErrorContext(ctx, "explainer failed", "group", clip(req.GetGroupId()), "error", clipN(err.Error(), maxMessage))
		return nil, fmt.Errorf("explaining the policy: %w", err)
	}
	out := explanationOut(e, caller)
	out.Rollout = s.ruleRollout(e.Rule)
	return out, nil
}

// protocolNames lists the protocol names the policy answers for, for
// ListAssignors: the Explainer's when the server has one (it describes the
// policy), else the Selector's, when it can list them (the optional method
// ProtocolNames() []string, as on ErrUnknownProtocol errors); else none.
func (s *service) protocolNames() []string {
	var x any = s.sel
	if s.explainer != nil {
		x = s.explainer
	}
	if n, ok := x.(protocolNamer); ok {
		return n.ProtocolNames()
	}
	return nil
}

// unknownProtocol is the client's error for a protocol name no assignor
// answers to, from Select or ExplainPolicy.
func unknownProtocol(err error) *fieldError {
	return &fieldError{field: "protocol_name", reason: assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME,
		desc: clipN(err.Error(), maxMessage), err: err}
}

func explanationOut(e Explanation, caller Caller) *assigndv1.ExplainPolicyResponse {
	out := &assigndv1.ExplainPolicyResponse{
		Policy:            e.Policy,
		Rule:              e.Rule,
		Revision:          e.Revision,
		Description:       e.Description,
		Bucket:            int32(e.Bucket),
		Reason:            e.Reason,
		Assignor:          e.Assignor,
		RebalanceProtocol: apiconv.ProtocolToAPI(e.Protocol),
		Params:            paramsOut(e.Params),
		Caller:            &assigndv1.CallerIdentity{Subject: caller.Subject, CommonName: caller.CommonName},
	}
	if e.Shadow != nil {
		out.Shadow = &assigndv1.ShadowPolicy{Assignor: e.Shadow.Assignor, Params: paramsOut(e.Shadow.Params)}
	}
	for _, sk := range e.Skipped {
		out.Skipped = append(out.Skipped, &assigndv1.SkippedRule{Rule: sk.Rule, Reason: sk.Reason})
	}
	return out
}

func paramsOut(p PolicyParams) *assigndv1.PolicyParams {
	return &assigndv1.PolicyParams{RackAware: p.RackAware, MaxMovesPerRebalance: int32(p.MaxMovesPerRebalance), Freeze: p.Freeze,
		KeepMisalignedRacks: p.KeepMisalignedRacks,
		LoadTolerance:       &p.LoadTolerance, LoadHysteresis: &p.LoadHysteresis, MaxCountSkew: proto.Int32(int32(p.MaxCountSkew)),
		LoadSource: p.LoadSource, LoadCluster: p.LoadCluster}
}
