package saramaassign

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client/internal/leadercall"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// fromResponse checks that resp is a plan for g and returns each member's
// decoded partitions, in the response's order. A plan that sarama would
// pass on as it is must not be able to hurt the group, so it is refused
// when it runs another rebalance protocol than g's, leaves out a member,
// assigns a member twice or one that is not in g, or names a topic or
// partition g does not have, or the same partition for two members.
func fromResponse(resp *assigndv1.AssignResponse, g *assign.Group) ([]assign.MemberAssignment, error) {
	if got, want := resp.GetRebalanceProtocol(), apiconv.ProtocolToAPI(g.Protocol); got != want {
		return nil, fmt.Errorf("%w: it ran %s for a group running %s", leadercall.ErrInvalidResponse, got, want)
	}
	ids := make([]string, len(g.Members))
	for i := range g.Members {
		ids[i] = g.Members[i].ID
	}
	check := leadercall.NewMemberCheck(ids)
	counts := make(map[string]int32, len(g.Topics))
	for _, t := range g.Topics {
		counts[t.Name] = t.Partitions
	}
	// taken marks, per topic, the partitions already given to a member.
	taken := make(map[string][]bool, len(g.Topics))
	out := make([]assign.MemberAssignment, 0, len(g.Members))
	for _, a := range resp.GetAssignments() {
		id := a.GetMemberId()
		if err := check.Assigned(id); err != nil {
			return nil, err
		}
		ma := assign.MemberAssignment{ID: id, UserData: a.GetUserData()}
		for _, l := range a.GetPartitions() {
			topic := l.GetTopic()
			n, ok := counts[topic]
			if !ok {
				return nil, fmt.Errorf("%w: it gives member %q unknown topic %q", leadercall.ErrInvalidResponse, id, topic)
			}
			marks := taken[topic]
			if marks == nil {
				marks = make([]bool, n)
				taken[topic] = marks
			}
			for _, p := range l.GetPartitions() {
				if p < 0 || p >= n {
					return nil, fmt.Errorf("%w: it gives member %q partition %d of topic %q, which has %d", leadercall.ErrInvalidResponse, id, p, topic, n)
				}
				if marks[p] {
					return nil, fmt.Errorf("%w: it gives partition %d of topic %q twice, the second time to member %q", leadercall.ErrInvalidResponse, p, topic, id)
				}
				marks[p] = true
			}
			ma.Assigned = append(ma.Assigned, assign.TopicPartitions{Topic: topic, Partitions: l.GetPartitions()})
		}
		out = append(out, ma)
	}
	if err := check.Complete(); err != nil {
		return nil, err
	}
	return out, nil
}
