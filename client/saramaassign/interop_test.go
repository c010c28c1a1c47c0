package saramaassign_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/IBM/sarama"
	"pgregory.net/rapid"

	"github.com/assignd/assignd/client/saramaassign"
	"github.com/assignd/assignd/testbed/shimtest"
)

// TestStickyInterop: sarama's sticky strategy and the adapter read each
// other's user data. Whichever of the two led the last generation (and so
// wrote every member's user data), whichever leads the next one keeps
// every remaining member's partitions when a member leaves.
func TestStickyInterop(t *testing.T) {
	kinds := map[string]func() sarama.BalanceStrategy{
		"sarama": func() sarama.BalanceStrategy { return sarama.NewBalanceStrategySticky() },
		"adapter": func() sarama.BalanceStrategy {
			return saramaassign.Sticky(nil, saramaassign.WithLogger(shimtest.Quiet))
		},
	}
	for _, wrote := range []string{"sarama", "adapter"} {
		for _, reads := range []string{"sarama", "adapter"} {
			t.Run(fmt.Sprintf("%s wrote, %s reads", wrote, reads), func(t *testing.T) {
				rapid.Check(t, func(rt *rapid.T) {
					topics := map[string][]int32{}
					for i := range rapid.IntRange(1, 3).Draw(rt, "topics") {
						topics[fmt.Sprintf("t%d", i)] = ids(rapid.IntRange(1, 24).Draw(rt, "partitions"))
					}
					subscribed := slices.Sorted(maps.Keys(topics))
					members := map[string]sarama.ConsumerGroupMemberMetadata{}
					for i := range rapid.IntRange(2, 6).Draw(rt, "members") {
						members[fmt.Sprintf("m%d", i)] = sarama.ConsumerGroupMemberMetadata{Version: 1, Topics: subscribed}
					}
					gen := rapid.Int32Range(1, 100).Draw(rt, "generation")

					writer := kinds[wrote]()
					prev, err := writer.Plan(members, topics)
					if err != nil {
						rt.Fatal(err)
					}
					// Each member sends back the user data of the assignment
					// it received, as sarama members do.
					for id, meta := range members {
						if meta.UserData, err = writer.AssignmentData(id, prev[id], gen); err != nil {
							rt.Fatal(err)
						}
						members[id] = meta
					}
					gone := rapid.SampledFrom(slices.Sorted(maps.Keys(members))).Draw(rt, "leaver")
					delete(members, gone)

					next, err := kinds[reads]().Plan(members, topics)
					if err != nil {
						rt.Fatal(err)
					}
					checkPlan(rt, members, topics, next)
					for id := range members {
						for topic, ps := range prev[id] {
							for _, p := range ps {
								if !slices.Contains(next[id][topic], p) {
									rt.Fatalf("%s lost %s/%d when %s left: before %v, after %v", id, topic, p, gone, prev, next)
								}
							}
						}
					}
				})
			})
		}
	}
}

// ids returns 0..n-1, as sarama lists a topic's partitions.
func ids(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(i)
	}
	return out
}
