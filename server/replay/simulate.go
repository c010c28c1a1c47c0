package replay

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/request"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// SimulateGroup replays the group's kept inputs, oldest first, under
// another assignor. The method:
//
//   - actual: each recorded input is run again with the assignor its
//     decision names, and the parameters the current policy gives the
//     group; the engine is deterministic, so this reproduces what ran,
//     and gives the figures a decision does not keep (per-topic skew,
//     partitions off their rack);
//   - simulated: the first input is run as recorded; every later input is
//     run with each member's owned partitions replaced by what the
//     simulated assignor gave it in the round before (a member absent
//     from that round owns nothing). A recorded input's owned partitions
//     are what the real assignor produced, so keeping them would measure
//     the real assignor's moves, not the simulated one's. Everything else
//     (members, subscriptions, racks, topics, user data) is as recorded.
//
// Each round's figures are of its first engine run (what the rebalance
// does), with skew and racks of its settled plan.
func (r *Service) SimulateGroup(ctx context.Context, req *assigndv1.SimulateGroupRequest) (*assigndv1.SimulateGroupResponse, error) {
	if r.store == nil {
		return nil, errNoPreviewHistory
	}
	a, err := lookupAssignor(req.GetAssignor())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "assignor: %v", err)
	}
	params, err := simulateParams(req.GetParams())
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "params: %v", err)
	}
	ins := r.store.Inputs(req.GetGroupId())
	if len(ins) == 0 {
		return nil, status.Errorf(codes.NotFound, "group %q: no input kept on this replica", rpcerr.Clip(req.GetGroupId()))
	}
	_, decisions, _ := r.store.Get(req.GetGroupId(), 0)
	resp := &assigndv1.SimulateGroupResponse{GroupId: req.GetGroupId(), Assignor: assign.Ref(a), Params: ParamsToAPI(params)}
	var prev map[string][]assign.TopicPartitions
	for _, in := range ins {
		rp, err := decodeInput(in)
		if err != nil {
			continue // marshaled by assignd: cannot happen
		}
		round := &assigndv1.SimulatedRound{InputTime: timestamppb.New(in.Time), GenerationId: in.Generation}
		actual, aopts, proto := r.actualChoice(ctx, rp, in.Digest, decisions)
		if actual != nil {
			round.ActualAssignor = assign.Ref(actual)
			if _, _, round.Actual, err = r.outcome(ctx, rp, actual, proto, aopts, nil); err != nil && ctx.Err() != nil {
				return nil, rpcerr.ToStatus(rpcerr.CallEnded(ctx))
			}
		}
		_, res, fig, err := r.outcome(ctx, rp, a, proto, params.Options(), prev)
		if err != nil {
			if ctx.Err() != nil {
				return nil, rpcerr.ToStatus(rpcerr.CallEnded(ctx))
			}
			return nil, status.Errorf(codes.FailedPrecondition, "%s cannot run the input of generation %d: %s", assign.Ref(a), in.Generation, rpcerr.ClipMessage(runError(err)))
		}
		round.Simulated = fig
		prev = assignedOf(res)
		resp.Rounds = append(resp.Rounds, round)
		resp.ActualMoved += round.GetActual().GetMoved()
		resp.SimulatedMoved += fig.GetMoved()
		if round.GetActual().GetFollowupRequired() {
			resp.ActualFollowups++
		}
		if fig.GetFollowupRequired() {
			resp.SimulatedFollowups++
		}
		resp.ActualFinalSkew = round.GetActual().GetWorstTopicSkew()
		resp.SimulatedFinalSkew = fig.GetWorstTopicSkew()
	}
	return resp, nil
}

// actualChoice is what ran on the input: the assignor of the decision with
// the input's digest (else the current policy's), the current policy's
// parameters for the group, and the protocol the group ran.
func (r *Service) actualChoice(ctx context.Context, rp *replay, digest []byte, decisions []*assigndv1.Decision) (assign.Assignor, []assign.Option, assign.RebalanceProtocol) {
	var ref string
	proto := assign.ProtocolUnspecified
	for _, d := range decisions {
		if bytes.Equal(d.GetInputDigest(), digest) {
			ref = d.GetAssignor()
			if p, err := request.Protocol(d.GetRebalanceProtocol()); err == nil {
				proto = p
			}
			break
		}
	}
	var opts []assign.Option
	if r.explainer != nil {
		if exp, err := r.explainer.ExplainPolicy(ctx, selection.Query{GroupID: rp.group, ProtocolName: rp.req.GetProtocolName(), Caller: r.caller(rp.group)}); err == nil {
			opts = exp.Params.Options()
			if ref == "" {
				ref = exp.Assignor
			}
			if proto == assign.ProtocolUnspecified {
				proto = exp.Protocol
			}
		}
	}
	a, err := lookupAssignor(ref)
	if err != nil {
		return nil, nil, proto
	}
	return a, opts, proto
}

// simulateParams reads parameters as a policy file writes them, the
// policy's defaults filled in.
func simulateParams(kv map[string]string) (selection.PolicyParams, error) {
	p := selection.PolicyParams{RackAware: true}
	for k, v := range kv {
		var err error
		switch k {
		case "rack_aware":
			p.RackAware, err = strconv.ParseBool(v)
		case "max_moves_per_rebalance":
			p.MaxMovesPerRebalance, err = strconv.Atoi(v)
			if err == nil && p.MaxMovesPerRebalance < 0 {
				err = fmt.Errorf("must not be negative")
			}
		case "freeze":
			p.Freeze, err = strconv.ParseBool(v)
		case "keep_misaligned_racks":
			p.KeepMisalignedRacks, err = strconv.ParseBool(v)
		default:
			return p, fmt.Errorf("unknown parameter %q (rack_aware, max_moves_per_rebalance, freeze, keep_misaligned_racks)", k)
		}
		if err != nil {
			return p, fmt.Errorf("%s=%q: %v", k, v, err)
		}
	}
	return p, nil
}
