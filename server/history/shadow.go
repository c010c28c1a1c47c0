package history

import (
	"slices"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Shadow is a shadow run of a policy rule: what its shadow assignor
// decided for the input the primary assignor ran on.
type Shadow struct {
	Time         time.Time
	Group        string
	ProtocolName string
	// Assignor is the shadow assignor, as "name@version".
	Assignor       string
	Rule, Revision string
	Input          *assign.Group
	Result         *assign.Result
	Took           time.Duration
}

// shadowMembers caps the members a shadow record lists, as the server
// caps a decision's.
const shadowMembers = 32

// ShadowDecision is the record of a shadow run: a Decision marked shadow,
// with the counts, imbalance and follow-up of what the shadow would have
// decided, for comparison with the primary's decision of the same
// generation. Record it with [Store.Record].
func ShadowDecision(s Shadow) *assigndv1.Decision {
	r := s.Result
	d := &assigndv1.Decision{
		Time: timestamppb.New(s.Time), GroupId: s.Group, GenerationId: s.Input.Generation, ProtocolName: s.ProtocolName,
		RebalanceProtocol: apiconv.ProtocolToAPI(r.Protocol), Assignor: s.Assignor, PolicyRule: s.Rule, PolicyRevision: s.Revision,
		MemberCount: int32(len(r.Members)), Partitions: int32(r.Stats.Partitions), Moved: int32(r.Stats.Moved),
		Withheld: int32(r.Stats.Pending), Revoked: int32(r.Stats.Revoked), Imbalance: int32(r.Stats.Imbalance),
		FollowupRequired: r.FollowupRequired, EngineTime: durationpb.New(s.Took), Shadow: true,
	}
	d.Members = DecisionMembers(s.Input, r, shadowMembers, nil)
	return d
}

// DecisionMembers lists the first limit members of res by id, with
// their owned (from g, the input) and assigned (from res) partition
// counts, and their assigned counts per topic of topics (sorted; none
// when nil): the members a Decision records. It runs on every recorded
// call: the members and their per-topic counts share two allocations, and
// g's members are matched by position while g lists them in res's order.
func DecisionMembers(g *assign.Group, res *assign.Result, limit int, topics []string) []*assigndv1.DecisionMember {
	n := min(len(res.Members), limit)
	backing := make([]assigndv1.DecisionMember, n)
	counts := make([]int32, n*len(topics))
	var byID map[string]*assign.Member
	input := func(i int, id string) *assign.Member {
		if byID == nil && i < len(g.Members) && g.Members[i].ID == id {
			return &g.Members[i]
		}
		if byID == nil {
			byID = make(map[string]*assign.Member, len(g.Members))
			for j := range g.Members {
				byID[g.Members[j].ID] = &g.Members[j]
			}
		}
		return byID[id]
	}
	out := make([]*assigndv1.DecisionMember, n)
	for i, ma := range res.Members[:n] {
		dm := &backing[i]
		dm.MemberId, dm.Assigned = ma.ID, int32(CountPartitions(ma.Assigned))
		if topics != nil {
			dm.AssignedByTopic = counts[i*len(topics) : (i+1)*len(topics) : (i+1)*len(topics)]
			for _, tp := range ma.Assigned {
				if t, ok := slices.BinarySearch(topics, tp.Topic); ok {
					dm.AssignedByTopic[t] = int32(len(tp.Partitions))
				}
			}
		}
		if m := input(i, ma.ID); m != nil {
			dm.GroupInstanceId, dm.Rack, dm.Owned = m.InstanceID, m.Rack, int32(CountPartitions(m.Owned))
		}
		out[i] = dm
	}
	return out
}

// CountPartitions counts the partitions of a list of topics' partitions.
func CountPartitions(tps []assign.TopicPartitions) int {
	n := 0
	for _, tp := range tps {
		n += len(tp.Partitions)
	}
	return n
}
