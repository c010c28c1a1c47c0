package saramaassign_test

import (
	"fmt"
	"testing"

	"github.com/IBM/sarama"

	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/client/saramaassign"
	"github.com/assignd/assignd/testbed/shimtest"
)

// FuzzPlan feeds Plan what sarama decodes from arbitrary JoinGroup
// metadata (through sarama's own decoder), with partition id lists drawn
// from the input, gaps and repeats included. Plan must return a valid
// plan or an error, never panic, and AssignmentData must encode every
// member's share.
func FuzzPlan(f *testing.F) {
	sub := func(s wire.Subscription) []byte { return wire.AppendSubscription(nil, &s) }
	prev := wire.AppendStickyUserData(nil, []wire.TopicPartitions{{Topic: "a", Partitions: []int32{0, 2}}}, 3, true)
	f.Add(sub(wire.Subscription{Version: 0, Topics: []string{"a", "b"}, UserData: prev}), sub(wire.Subscription{Version: 1, Topics: []string{"a"}}), []byte{4, 3})
	f.Add(sub(wire.Subscription{Version: 2, Topics: []string{"a"}, Generation: 2}), sub(wire.Subscription{Version: 3, Topics: []string{"b", "a"}, Rack: "r"}), []byte{0x85, 1})
	f.Add(sub(wire.Subscription{Version: 1, Topics: []string{"a"}, Owned: []wire.TopicPartitions{{Topic: "a", Partitions: []int32{1, 9}}}}), []byte{0, 1}, []byte{2})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0}, []byte{}, []byte{})
	strategies := []*saramaassign.Strategy{
		saramaassign.Range(nil, saramaassign.WithLogger(shimtest.Quiet)),
		saramaassign.RoundRobin(nil, saramaassign.WithLogger(shimtest.Quiet)),
		saramaassign.Sticky(nil, saramaassign.WithLogger(shimtest.Quiet)),
	}
	f.Fuzz(func(t *testing.T, metaA, metaB, counts []byte) {
		join := &sarama.JoinGroupResponse{Members: []sarama.GroupMember{{MemberId: "a", Metadata: metaA}, {MemberId: "b", Metadata: metaB}}}
		members, err := join.GetMembers()
		if err != nil {
			return // sarama fails the join before any strategy runs
		}
		topics := map[string][]int32{}
		i := 0
		for _, m := range members {
			for _, topic := range m.Topics {
				if _, done := topics[topic]; done || len(topics) == 8 {
					continue
				}
				var c byte
				if i < len(counts) {
					c = counts[i]
				}
				i++
				// Low bits: how many partitions (0..63); the high bit drops
				// partition 1, the next one repeats partition 0.
				ids := make([]int32, 0, c&63+1)
				for p := range int32(c & 63) {
					if p != 1 || c&0x80 == 0 {
						ids = append(ids, p)
					}
				}
				if c&0x40 != 0 && len(ids) > 0 {
					ids = append(ids, ids[0])
				}
				topics[topic] = ids
			}
		}
		for _, s := range strategies {
			plan, err := s.Plan(members, topics)
			if err != nil {
				continue
			}
			checkPlan(t, members, topics, plan)
			for id, assigned := range plan {
				if _, err := s.AssignmentData(id, assigned, 1); err != nil {
					t.Fatal(fmt.Errorf("%s: AssignmentData(%s): %w", s.Name(), id, err))
				}
			}
		}
	})
}
