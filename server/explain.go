package server

import (
	"context"
	"errors"
	"fmt"

	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/replay"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// ExplainPolicy says what the policy does for a group: the Explainer's
// answer for the group, protocol name and caller an Assign call would
// present. The caller is the one this call's client certificate proves,
// unless the request names another: explaining reveals the policy, not
// anyone's assignment, and operators need to see what a group's leader
// gets without holding its key.
func (s *service) ExplainPolicy(ctx context.Context, req *assigndv1.ExplainPolicyRequest) (*assigndv1.ExplainPolicyResponse, error) {
	return withStatus(ctx, req, s.explainPolicy)
}

func (s *service) explainPolicy(ctx context.Context, req *assigndv1.ExplainPolicyRequest) (*assigndv1.ExplainPolicyResponse, error) {
	if s.explainer == nil {
		return nil, rpcerr.ErrNoExplainer
	}
	caller := callerFromContext(ctx)
	if c := req.GetCaller(); c != nil {
		caller = selection.Caller{Subject: c.GetSubject(), CommonName: c.GetCommonName()}
	}
	q := selection.Query{GroupID: req.GetGroupId(), ProtocolName: req.GetProtocolName(), Caller: caller}
	if req.GetGroupType() == assigndv1.GroupType_GROUP_TYPE_STREAMS {
		q.GroupType, q.ProtocolName = selection.GroupStreams, ""
	}
	e, err := s.explainer.ExplainPolicy(ctx, q)
	switch {
	case errors.Is(err, selection.ErrUnknownProtocol):
		return nil, rpcerr.UnknownProtocol(err)
	case err != nil:
		s.logger.ErrorContext(ctx, "explainer failed", "group", rpcerr.Clip(req.GetGroupId()), "error", rpcerr.ClipMessage(err.Error()))
		return nil, fmt.Errorf("explaining the policy: %w", err)
	}
	out := explanationOut(e, caller)
	out.Rollout = s.ruleRollout(e.Rule)
	return out, nil
}

// protocolNames lists the protocol names the policy answers for, for
// ListAssignors: the Explainer's when the server has one (it describes the
// policy), else the Selector's, when it can list them (the optional method
// ProtocolNames() []string, as on selection.ErrUnknownProtocol errors); else none.
func (s *service) protocolNames() []string {
	var x any = s.sel
	if s.explainer != nil {
		x = s.explainer
	}
	if n, ok := x.(rpcerr.ProtocolNamer); ok {
		return n.ProtocolNames()
	}
	return nil
}

func explanationOut(e selection.Explanation, caller selection.Caller) *assigndv1.ExplainPolicyResponse {
	out := &assigndv1.ExplainPolicyResponse{
		Policy:            e.Policy,
		Rule:              e.Rule,
		Revision:          e.Revision,
		Description:       e.Description,
		Bucket:            int32(e.Bucket),
		Reason:            e.Reason,
		Assignor:          e.Assignor,
		RebalanceProtocol: apiconv.ProtocolToAPI(e.Protocol),
		Params:            replay.ParamsToAPI(e.Params),
		Caller:            &assigndv1.CallerIdentity{Subject: caller.Subject, CommonName: caller.CommonName},
	}
	if e.Shadow != nil {
		out.Shadow = &assigndv1.ShadowPolicy{Assignor: e.Shadow.Assignor, Params: replay.ParamsToAPI(e.Shadow.Params)}
	}
	for _, sk := range e.Skipped {
		out.Skipped = append(out.Skipped, &assigndv1.SkippedRule{Rule: sk.Rule, Reason: sk.Reason})
	}
	return out
}

// ruleRollout is the staged rollout of a rule for ExplainPolicy, nil
// without one.
func (s *service) ruleRollout(rule string) *assigndv1.RolloutRuleState {
	if s.rollouts == nil || rule == "" {
		return nil
	}
	return s.rollouts.RuleStatus(rule)
}
