package server

import (
	"context"
	"slices"
	"time"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/assignd/assignd/assign/share"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

// shareDecisionInput is what an answered AssignShare call leaves for its
// Decision, as taskDecisionInput is for AssignTasks: references, read
// once the response is written.
type shareDecisionInput struct {
	at        time.Time
	req       *assigndv1.AssignShareRequest
	group     *share.Group
	res       *share.Result
	engine    time.Duration
	userAgent string
}

// noteShareDecision keeps what the call's Decision is built from.
func (r *callReport) noteShareDecision(ctx context.Context, req *assigndv1.AssignShareRequest, g *share.Group, res *share.Result, engine time.Duration) {
	in := &shareDecisionInput{at: time.Now(), req: req, group: g, res: res, engine: engine}
	if md, ok := metadata.FromIncomingContext(ctx); ok && len(md.Get("user-agent")) > 0 {
		in.userAgent = rpcerr.Clip(md.Get("user-agent")[0])
	}
	r.shareDecision = in
}

// buildShareDecision is the record of a share group's call: group_type
// GROUP_TYPE_SHARE; partitions counts the assignable partitions of the
// subscribed topics, moved the (partition, member) pairs removed;
// members' owned and assigned count their current and planned pairs, and
// imbalance is between the most and least pairs of a member
// (worst_topic_imbalance per topic, over its subscribers). As for a
// streams group, the history keeps no input, only its digest.
func (r *callReport) buildShareDecision(callTime time.Duration) *assigndv1.Decision {
	in := r.shareDecision
	res := in.res
	d := &assigndv1.Decision{
		Time:        timestamppb.New(in.at),
		GroupId:     in.req.GetGroupId(),
		GroupType:   assigndv1.GroupType_GROUP_TYPE_SHARE,
		Assignor:    res.Assignor,
		PolicyRule:  r.policy,
		MemberCount: int32(len(res.Assignments)),
		Moved:       int32(res.Stats.Removed),
		EngineTime:  durationpb.New(in.engine),
		CallTime:    durationpb.New(callTime),
		UserAgent:   in.userAgent,
	}
	if b, err := (proto.MarshalOptions{Deterministic: true}).Marshal(in.req); err == nil {
		d.InputDigest = digest(b)
	}
	for _, t := range in.group.Topics {
		d.Topics = append(d.Topics, t.Name)
		d.Partitions += max(t.Partitions, 0) - int32(len(t.Unassignable))
	}
	slices.Sort(d.Topics)
	d.Topics = slices.Clip(d.Topics[:min(len(d.Topics), decisionTopics)])
	current := make(map[string]int32, len(in.req.GetMembers()))
	for _, m := range in.req.GetMembers() {
		for _, tp := range m.GetCurrentPartitions() {
			current[m.GetMemberId()] += int32(len(tp.GetPartitions()))
		}
	}
	lo, hi := int32(-1), int32(0)
	for i, a := range res.Assignments { // sorted by member id
		var n int32
		for _, tp := range a.Partitions {
			n += int32(len(tp.Partitions))
		}
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
		if i < decisionMembers {
			d.Members = append(d.Members, &assigndv1.DecisionMember{MemberId: a.Member, Owned: current[a.Member], Assigned: n})
		}
	}
	d.Imbalance = max(hi-lo, 0)
	d.WorstTopicImbalance, d.WorstImbalanceTopic = worstShareTopic(in.group, res)
	for _, w := range res.Warnings[:min(len(res.Warnings), decisionWarnings)] {
		d.Warnings = append(d.Warnings, rpcerr.ClipMessage(w))
	}
	return d
}

// worstShareTopic is the largest spread of a topic's subscribers'
// partition counts, and the topic (the first by name on a tie; "" when
// every topic is even).
func worstShareTopic(g *share.Group, res *share.Result) (int32, string) {
	held := map[string]map[string]int32{} // topic → member → partitions
	for _, a := range res.Assignments {
		for _, tp := range a.Partitions {
			if held[tp.Topic] == nil {
				held[tp.Topic] = map[string]int32{}
			}
			held[tp.Topic][a.Member] = int32(len(tp.Partitions))
		}
	}
	var worst int32
	topic := ""
	for _, t := range g.Topics {
		lo, hi := int32(-1), int32(0)
		for _, m := range g.Members {
			if slices.Contains(m.Topics, t.Name) {
				n := held[t.Name][m.ID]
				if lo < 0 || n < lo {
					lo = n
				}
				hi = max(hi, n)
			}
		}
		if spread := hi - lo; lo >= 0 && (spread > worst || spread == worst && spread > 0 && t.Name < topic) {
			worst, topic = spread, t.Name
		}
	}
	return worst, topic
}
