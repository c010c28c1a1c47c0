package assign_test

import (
	"fmt"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// TestRebalanceLargeOwner: a member owning thousands of partitions and a
// newcomer with an extra topic (unequal subscriptions, so the general
// plan and its balance repair run). The repair once moved one partition
// per search and ran out of work budget after about 2,900 moves, leaving
// the plan uneven and the group several follow-ups from settling. Each
// round must be balanced, carry no warning, and settle with one follow-up
// (cooperative) or at once (eager).
func TestRebalanceLargeOwner(t *testing.T) {
	for _, n := range []int32{6000, 20000} {
		for _, a := range []assign.Assignor{assign.CooperativeSticky(), assign.CooperativeStickyPerTopic(), assign.Sticky()} {
			t.Run(fmt.Sprintf("%s/%d", assign.Ref(a), n), func(t *testing.T) {
				proto := assign.Cooperative
				if a == assign.Sticky() {
					proto = assign.Eager
				}
				owned := make([]int32, n)
				for i := range owned {
					owned[i] = int32(i)
				}
				g := assigntest.NewGroup().Topic("orders", n).Topic("audit", 10).
					Member("consumer-1", "orders").Owns("consumer-1", "orders", owned...).Gen("consumer-1", 1).
					Member("consumer-2", "orders", "audit").Protocol(proto).Build()
				g.Generation = 2
				rounds := 0
				for {
					r := runChecked(t, a, g, nil, assigntest.Balanced())
					if len(r.Warnings) > 0 {
						t.Fatalf("round %d: warnings %q", rounds, r.Warnings)
					}
					if want := (n + 10) / 2; r.Stats.Moved > int(want) {
						t.Fatalf("round %d moved %d partitions, more than the %d a balanced plan needs", rounds, r.Stats.Moved, want)
					}
					if !r.FollowupRequired {
						break
					}
					if rounds++; rounds > 1 {
						t.Fatalf("still pending after %d follow-ups", rounds)
					}
					g = assigntest.NextGroup(g, r)
				}
			})
		}
	}
}
