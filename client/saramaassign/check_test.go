package saramaassign_test

import (
	"slices"

	"github.com/IBM/sarama"
)

// checkPlan is the invariant every plan meets: every member is in it;
// each member gets only listed partitions of topics it subscribes to;
// every listed partition of a topic someone subscribes to goes to exactly
// one member.
func checkPlan(t fataler, members map[string]sarama.ConsumerGroupMemberMetadata, topics map[string][]int32, plan sarama.BalanceStrategyPlan) {
	t.Helper()
	type tp struct {
		topic string
		p     int32
	}
	owner := map[tp]string{}
	for id, meta := range members {
		got, ok := plan[id]
		if !ok {
			t.Fatalf("member %q is not in the plan", id)
		}
		for topic, ps := range got {
			if !slices.Contains(meta.Topics, topic) {
				t.Fatalf("member %q got topic %q it does not subscribe to", id, topic)
			}
			for _, p := range ps {
				if !slices.Contains(topics[topic], p) {
					t.Fatalf("member %q got %s/%d, which sarama did not list", id, topic, p)
				}
				if o, dup := owner[tp{topic, p}]; dup {
					t.Fatalf("%s/%d goes to %q and %q", topic, p, o, id)
				}
				owner[tp{topic, p}] = id
			}
		}
	}
	if len(plan) != len(members) {
		t.Fatalf("the plan has %d members, the group %d", len(plan), len(members))
	}
	for topic, ps := range topics {
		subscribed := false
		for _, meta := range members {
			subscribed = subscribed || slices.Contains(meta.Topics, topic)
		}
		if !subscribed {
			continue
		}
		for _, p := range ps {
			if _, ok := owner[tp{topic, p}]; !ok && p >= 0 {
				t.Fatalf("%s/%d goes to nobody", topic, p)
			}
		}
	}
}
