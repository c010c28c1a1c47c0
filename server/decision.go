package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"slices"
	"time"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// Caps on what one Decision lists, so that a huge group's record stays
// small; the counts beside the lists are always complete.
const (
	decisionMembers    = 32 // DecisionMember entries
	decisionPartitions = 64 // withheld, and revoked, partitions
	decisionWarnings   = 8
	decisionTopics     = 32 // columns of the member x topic counts
	decisionMoves      = 32 // PartitionMove entries: about 115 bytes each
)

// decisionInput is what an answered Assign call leaves for its Decision:
// what the handler already computed, kept by reference and read once the
// response is written.
type decisionInput struct {
	at        time.Time
	req       *assigndv1.AssignRequest
	group     *assign.Group
	res       *assign.Result
	engine    time.Duration
	caller    selection.Caller
	userAgent string
	// input is req marshaled deterministically, once (see marshaled);
	// received, unless nil, holds those bytes as they came.
	input    []byte
	received mem.Buffer
	// The response's load-aware fields (noteLoad).
	weightSource   assigndv1.WeightSource
	weightSnapshot string
	loadSnapshot   string
	load           *assigndv1.LoadSummary
}

// noteDecision keeps, in the call's report, what its Decision is built
// from. It only stores references: the record is built after the
// response is written.
// received, unless nil, holds req's deterministic marshaling, as it came.
func (r *callReport) noteDecision(ctx context.Context, req *assigndv1.AssignRequest, received mem.Buffer, g *assign.Group, res *assign.Result, engine time.Duration, caller selection.Caller) {
	r.decision = &decisionInput{at: time.Now(), req: req, received: received, group: g, res: res, engine: engine, caller: caller, userAgent: userAgent(ctx)}
}

// noteLoad keeps the response's weight source, snapshot and load for the
// call's Decision, if one is kept.
func (r *callReport) noteLoad(resp *assigndv1.AssignResponse) {
	if in := r.decision; in != nil {
		in.weightSource, in.weightSnapshot, in.load = resp.GetWeightSource(), resp.GetWeightSnapshot(), resp.GetLoad()
		in.loadSnapshot = resp.GetLoadSnapshot()
	}
}

// decision builds the record of the call from the report.
func (r *callReport) buildDecision(callTime time.Duration) *assigndv1.Decision {
	in := r.decision
	res := in.res
	d := r.groupDecision(groupCall{at: in.at, input: in.marshaled(), groupID: in.req.GetGroupId(), assignor: ref(r.assignor),
		engine: in.engine, caller: in.caller, userAgent: in.userAgent}, callTime)
	d.GenerationId = in.req.GetGenerationId()
	d.LeaderId = in.req.GetLeaderId()
	d.ProtocolName = in.req.GetProtocolName()
	d.RebalanceProtocol = apiconv.ProtocolToAPI(res.Protocol)
	d.MemberCount = int32(len(res.Members))
	d.Partitions = int32(res.Stats.Partitions)
	d.Moved = int32(res.Stats.Moved)
	d.Withheld = int32(res.Stats.Pending)
	d.Revoked = int32(res.Stats.Revoked)
	d.Imbalance = int32(res.Stats.Imbalance)
	d.FollowupRequired = res.FollowupRequired
	d.WeightSource, d.WeightSnapshot, d.LoadSnapshot, d.Load = in.weightSource, in.weightSnapshot, in.loadSnapshot, in.load
	d.Topics = decisionTopicsOf(in.group)
	d.Members = history.DecisionMembers(in.group, res, decisionMembers, d.Topics)
	d.WorstTopicImbalance, d.WorstImbalanceTopic = assign.WorstTopicSkew(in.group, res)
	d.WithheldPartitions = capPartitions(nil, res.Pending, decisionPartitions)
	var revoked []*assigndv1.TopicPartitions
	for _, m := range res.Members {
		revoked = capPartitions(revoked, m.Revoked, decisionPartitions-countPartitions(revoked))
	}
	d.RevokedPartitions = revoked
	d.MoveReasons = apiconv.MoveReasonsToAPI(&res.Stats.Reasons)
	d.Moves = apiconv.MovesToAPI(res.Moves[:min(len(res.Moves), decisionMoves)])
	d.Warnings = clippedWarnings(res.Warnings)
	return d
}

// clippedWarnings is the first warnings of a plan, each clipped, as a
// Decision keeps them.
func clippedWarnings(ws []string) []string {
	var out []string
	for _, w := range ws[:min(len(ws), decisionWarnings)] {
		out = append(out, rpcerr.ClipMessage(w))
	}
	return out
}

// decisionTopicsOf lists the first topics of the group by name.
func decisionTopicsOf(g *assign.Group) []string {
	out := make([]string, 0, len(g.Topics))
	for _, t := range g.Topics {
		out = append(out, t.Name)
	}
	slices.Sort(out)
	return slices.Clip(out[:min(len(out), decisionTopics)])
}

func countPartitions(tps []*assigndv1.TopicPartitions) int {
	n := 0
	for _, tp := range tps {
		n += len(tp.GetPartitions())
	}
	return n
}

// capPartitions appends up to limit partitions of tps to out.
func capPartitions(out []*assigndv1.TopicPartitions, tps []assign.TopicPartitions, limit int) []*assigndv1.TopicPartitions {
	for _, tp := range tps {
		if limit <= 0 {
			break
		}
		ps := tp.Partitions[:min(len(tp.Partitions), limit)]
		limit -= len(ps)
		out = append(out, &assigndv1.TopicPartitions{Topic: tp.Topic, Partitions: append([]int32(nil), ps...)})
	}
	return out
}

// marshaled is the request marshaled deterministically, the input the
// history keeps for replay and digests; nil if it cannot be marshaled.
// Received, they are copied out (of the exact size, a pointer-free
// allocation as a marshaling is) and the buffer freed.
func (in *decisionInput) marshaled() []byte {
	if in.input == nil && in.received != nil {
		in.input = bytes.Clone(in.received.ReadOnlyData())
		in.received.Free()
		in.received = nil
	}
	if in.input == nil {
		in.input, _ = proto.MarshalOptions{Deterministic: true}.Marshal(in.req)
	}
	return in.input
}

// digest is the SHA-256 of the request marshaled deterministically: the
// same input gives the same digest, on any replica.
func digest(b []byte) []byte {
	if b == nil {
		return nil
	}
	sum := sha256.Sum256(b)
	return sum[:]
}
