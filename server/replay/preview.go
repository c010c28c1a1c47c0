package replay

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

var (
	errNoPreviewHistory = status.Error(codes.Unimplemented, "this server keeps no group history (started without one): there is no input to replay")
	errNoPolicyParser   = status.Error(codes.Unimplemented, "this server cannot parse a candidate policy (it has no policy parser)")
)

// PreviewPolicy runs the candidate policy and the current one on each
// group's latest kept input, one group at a time on the replays' slot, and
// compares them. A group whose run fails (an unknown protocol name under
// the candidate, an input over the replay limit) carries the error in its
// outcome; the call fails only on a bad request or when it ends.
func (r *Service) PreviewPolicy(ctx context.Context, req *assigndv1.PreviewPolicyRequest) (*assigndv1.PreviewPolicyResponse, error) {
	switch {
	case r.store == nil:
		return nil, errNoPreviewHistory
	case r.parse == nil || r.explainer == nil:
		return nil, errNoPolicyParser
	}
	file := req.GetFileName()
	if file == "" {
		file = "candidate.yaml"
	}
	cand, err := r.parse(file, req.GetPolicy())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "the candidate policy is invalid: %s", rpcerr.ClipLong(err.Error()))
	}
	ids, next, total, err := r.page(req.GetGroupIdPrefix(), req.GetPageToken(), req.GetPageSize())
	if err != nil {
		return nil, err
	}
	resp := &assigndv1.PreviewPolicyResponse{NextPageToken: next, TotalGroups: int32(total)}
	for _, id := range ids {
		gp, err := r.previewGroup(ctx, id, cand)
		if err != nil {
			return nil, rpcerr.ToStatus(err)
		}
		if gp == nil {
			continue // its input was forgotten since the page was listed
		}
		if rev := gp.GetCurrent().GetRevision(); rev != "" {
			resp.CurrentRevision = rev
		}
		if rev := gp.GetCandidate().GetRevision(); rev != "" {
			resp.CandidateRevision = rev
		}
		resp.Groups = append(resp.Groups, gp)
	}
	return resp, nil
}

// previewGroup compares current and candidate on one group; nil when the
// group has no input any more. Its error is the call's end.
func (r *Service) previewGroup(ctx context.Context, id string, cand selection.Explainer) (*assigndv1.GroupPreview, error) {
	rp, err := r.latest(id)
	if err != nil {
		return nil, nil // forgotten since the page was listed: nothing to preview
	}
	gp := &assigndv1.GroupPreview{GroupId: id, ProtocolName: rp.req.GetProtocolName(), InputTime: timestamppb.New(rp.at), GenerationId: rp.req.GetGenerationId()}
	q := selection.Query{GroupID: id, ProtocolName: rp.req.GetProtocolName(), Caller: r.caller(id)}
	var curExp, candExp *selection.Explanation
	if gp.Current, curExp, err = r.policyOutcome(ctx, rp, r.explainer, q, nil, nil); err != nil {
		return nil, err
	}
	if gp.Candidate, candExp, err = r.policyOutcome(ctx, rp, cand, q, curExp, gp.GetCurrent()); err != nil {
		return nil, err
	}
	if curExp != nil && candExp != nil {
		gp.RuleChanged = curExp.Rule != candExp.Rule
		gp.AssignorChanged = curExp.Assignor != candExp.Assignor
		gp.ParamsChanged = curExp.Params != candExp.Params
	} else {
		gp.RuleChanged = curExp != candExp
	}
	if f := gp.GetCandidate().GetFigures(); f.GetPartitions() > 0 {
		gp.MovedRatio = float64(f.GetMoved()) / float64(f.GetPartitions())
	}
	return gp, nil
}

// policyOutcome runs what e chooses for q on rp. A failure of the group's
// own (no rule for its protocol name, a failed run) is in the outcome; the
// error is the call's end. When same, the outcome of another explanation
// on the same input, runs the same assignor with the same parameters and
// protocol, its figures are reused: the engine is deterministic, and most
// groups of a candidate policy do not change.
func (r *Service) policyOutcome(ctx context.Context, rp *replay, e selection.Explainer, q selection.Query, sameExp *selection.Explanation, same *assigndv1.PolicyOutcome) (*assigndv1.PolicyOutcome, *selection.Explanation, error) {
	exp, err := e.ExplainPolicy(ctx, q)
	if err != nil {
		return &assigndv1.PolicyOutcome{Error: rpcerr.ClipMessage(err.Error())}, nil, nil
	}
	out := &assigndv1.PolicyOutcome{Rule: exp.Rule, Assignor: exp.Assignor, Params: ParamsToAPI(exp.Params), Revision: exp.Revision}
	if sameExp != nil && same.GetError() == "" && sameExp.Assignor == exp.Assignor && sameExp.Params == exp.Params && sameExp.Protocol == exp.Protocol {
		out.Figures = same.GetFigures()
		return out, &exp, nil
	}
	a, err := lookupAssignor(exp.Assignor)
	if err != nil {
		out.Error = err.Error()
		return out, &exp, nil
	}
	_, _, fig, err := r.outcome(ctx, rp, a, exp.Protocol, exp.Params.Options(), nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, rpcerr.CallEnded(ctx)
		}
		out.Error = rpcerr.ClipMessage(runError(err))
		return out, &exp, nil
	}
	out.Figures = fig
	return out, &exp, nil
}

// runError words a replay's engine error.
func runError(err error) string {
	if errors.Is(err, assign.ErrUnsupportedProtocol) {
		return fmt.Sprintf("the assignor cannot run the group's rebalance protocol: %v", err)
	}
	return err.Error()
}
