package server

import (
	"context"
	"crypto/sha256"
	"slices"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

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
	// input is req marshaled deterministically, once (see marshaled).
	input []byte
	// The response's load-aware fields (noteLoad).
	weightSource   assigndv1.WeightSource
	weightSnapshot string
	loadSnapshot   string
	load           *assigndv1.LoadSummary
}

// noteDecision keeps, in the call's report, what its Decision is built
// from. It only stores references: the record is built after the
// response is written.
func (r *callReport) noteDecision(ctx context.Context, req *assigndv1.AssignRequest, g *assign.Group, res *assign.Result, engine time.Duration, caller selection.Caller) {
	in := &decisionInput{at: time.Now(), req: req, group: g, res: res, engine: engine, caller: caller}
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if ua := md.Get("user-agent"); len(ua) > 0 {
			in.userAgent = rpcerr.Clip(ua[0])
		}
	}
	r.decision = in
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
	rule, revision := splitPolicy(r.policy)
	d := &assigndv1.Decision{
		Time:              timestamppb.New(in.at),
		GroupId:           in.req.GetGroupId(),
		GenerationId:      in.req.GetGenerationId(),
		LeaderId:          in.req.GetLeaderId(),
		ProtocolName:      in.req.GetProtocolName(),
		RebalanceProtocol: apiconv.ProtocolToAPI(res.Protocol),
		Assignor:          ref(r.assignor),
		PolicyRule:        rule,
		PolicyRevision:    revision,
		MemberCount:       int32(len(res.Members)),
		Partitions:        int32(res.Stats.Partitions),
		Moved:             int32(res.Stats.Moved),
		Withheld:          int32(res.Stats.Pending),
		Revoked:           int32(res.Stats.Revoked),
		Imbalance:         int32(res.Stats.Imbalance),
		FollowupRequired:  res.FollowupRequired,
		EngineTime:        durationpb.New(in.engine),
		CallTime:          durationpb.New(callTime),
		UserAgent:         in.userAgent,
		InputDigest:       digest(in.marshaled()),
		CallerBinding:     r.binding,
		WeightSource:      in.weightSource,
		WeightSnapshot:    in.weightSnapshot,
		LoadSnapshot:      in.loadSnapshot,
		Load:              in.load,
	}
	if r.rolloutStep > 0 {
		d.RolloutStep = int32(r.rolloutStep)
		if !r.rolloutStarted.IsZero() {
			d.RolloutStarted = timestamppb.New(r.rolloutStarted)
		}
	}
	if in.caller != (selection.Caller{}) {
		d.Caller = &assigndv1.CallerIdentity{Subject: in.caller.Subject, CommonName: in.caller.CommonName}
	}
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
func (in *decisionInput) marshaled() []byte {
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
