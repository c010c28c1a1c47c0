package saramaassign_test

import (
	"cmp"
	"slices"

	"github.com/IBM/sarama"
	"github.com/assignd/assignd/testbed/shimtest"
)

// checkPlan is the invariant every plan meets: every member is in it;
// each member gets only listed partitions of topics it subscribes to;
// every listed partition of a topic someone subscribes to goes to exactly
// one member. It sorts rather than hashes, so that it checks
// million-partition plans in a fraction of a second.
func checkPlan(t shimtest.Fataler, members map[string]sarama.ConsumerGroupMemberMetadata, topics map[string][]int32, plan sarama.BalanceStrategyPlan) {
	t.Helper()
	type given struct {
		p  int32
		to string
	}
	byTopic := map[string][]given{}
	for id, meta := range members {
		got, ok := plan[id]
		if !ok {
			t.Fatalf("member %q is not in the plan", id)
		}
		for topic, ps := range got {
			if !slices.Contains(meta.Topics, topic) {
				t.Fatalf("member %q got topic %q it does not subscribe to", id, topic)
			}
			if _, ok := topics[topic]; !ok {
				t.Fatalf("member %q got topic %q, which sarama did not list", id, topic)
			}
			for _, p := range ps {
				byTopic[topic] = append(byTopic[topic], given{p, id})
			}
		}
	}
	if len(plan) != len(members) {
		t.Fatalf("the plan has %d members, the group %d", len(plan), len(members))
	}
	for topic, listed := range topics {
		subscribed := false
		for _, meta := range members {
			subscribed = subscribed || slices.Contains(meta.Topics, topic)
		}
		gs := byTopic[topic]
		slices.SortFunc(gs, func(a, b given) int { return cmp.Compare(a.p, b.p) })
		for i := 1; i < len(gs); i++ {
			if gs[i].p == gs[i-1].p {
				t.Fatalf("%s/%d goes to %q and %q", topic, gs[i].p, gs[i-1].to, gs[i].to)
			}
		}
		want := slices.Clone(listed)
		slices.Sort(want)
		want = slices.Compact(want)
		// Walk both sorted lists: every given partition must be listed;
		// every listed one (but negative ids) given, if subscribed.
		i := 0
		for _, g := range gs {
			for i < len(want) && want[i] < g.p {
				if subscribed && want[i] >= 0 {
					t.Fatalf("%s/%d goes to nobody", topic, want[i])
				}
				i++
			}
			if i == len(want) || want[i] != g.p {
				t.Fatalf("member %q got %s/%d, which sarama did not list", g.to, topic, g.p)
			}
			i++
		}
		for ; i < len(want); i++ {
			if subscribed && want[i] >= 0 {
				t.Fatalf("%s/%d goes to nobody", topic, want[i])
			}
		}
	}
}
