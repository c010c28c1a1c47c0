package assign_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// TestRepairLargeOwner: a member owning thousands of partitions and a
// newcomer with an extra topic (unequal subscriptions, so the general
// plan and its balance repair run). The repair once moved one partition
// per search and ran out of work budget after about 2,900 moves, leaving
// the plan uneven and the group several follow-ups from settling. Each
// round must be balanced, carry no warning, and settle with one follow-up
// (cooperative) or at once (eager).
func TestRepairLargeOwner(t *testing.T) {
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
					r := run(t, a, g, nil, balanced)
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

// TestRepairScaleOutUnequal: 500 or 1,000 members with unequal
// subscriptions over 100 topics × 1,000 partitions, settled, then grown by
// half or a tenth. The repair once handed one partition per search to the
// newcomers, ran out of work budget after about 4,000 moves a round and
// took twelve follow-ups to settle; now the givers the search finds as
// good as the one it took hand over in the same step. The group must
// settle with one follow-up, every round balanced and without warnings,
// and move nothing but what the newcomers end up with (every partition was
// owned, so each of theirs is one move, and the old members never trade
// among themselves). BenchmarkCooperativeSticky/R-join times the second.
func TestRepairScaleOutUnequal(t *testing.T) {
	const topics, partitions = 100, 1000
	for _, tc := range []struct {
		name          string
		before, after int
		subscribed    func(m, t int) bool
	}{
		{"(i+j) mod 3 ≠ 0, 500 → 1000", 500, 1000, func(m, t int) bool { return (m+t)%3 != 0 }},
		{"30 random topics, 1000 → 1100", 1000, 1100, randomSubscriptions(1100)},
	} {
		subscription := func(m int) []string {
			var ts []string
			for j := range topics {
				if tc.subscribed(m, j) {
					ts = append(ts, fmt.Sprintf("topic-%03d", j))
				}
			}
			return ts
		}
		for _, a := range cooperativeAssignors {
			t.Run(tc.name+"/"+assign.Ref(a), func(t *testing.T) {
				b := assigntest.NewGroup().Protocol(assign.Cooperative)
				for j := range topics {
					b.Topic(fmt.Sprintf("topic-%03d", j), partitions)
				}
				for i := range tc.before {
					b.Member(fmt.Sprintf("consumer-%04d", i), subscription(i)...)
				}
				g := b.Build()
				r := run(t, a, g, nil, balanced)
				if r.FollowupRequired {
					t.Fatal("a first assignment needs no follow-up")
				}
				e := assigntest.Edit(assigntest.NextGroup(g, r))
				for i := tc.before; i < tc.after; i++ {
					e.Member(fmt.Sprintf("consumer-%04d", i), subscription(i)...)
				}
				g = e.Build()
				r, moved := settleWithinOneFollowup(t, a, g)
				newcomers := 0
				for _, ma := range r.Members {
					if ma.ID >= fmt.Sprintf("consumer-%04d", tc.before) {
						for _, tp := range ma.Assigned {
							newcomers += len(tp.Partitions)
						}
					}
				}
				if moved != newcomers {
					t.Fatalf("moved %d partitions in all; the newcomers hold %d, so old members traded %d among themselves", moved, newcomers, moved-newcomers)
				}
			})
		}
	}
}

// TestRepairBudgetCutsShortValidly: when the repair's work budget runs
// out (here with no floor and 4 steps per unit of input, on 100 members
// each reading a different half of 500 topics × 200 partitions, one more
// joining; with the default budget it settles in one round), the round is still
// valid, says so in a warning, asks for a follow-up and revokes something
// (so that cooperative members do rejoin), and the follow-ups carry on to
// a balanced plan (librdkafka #4783: a repair that could spin forever).
func TestRepairBudgetCutsShortValidly(t *testing.T) {
	defer assign.SetMinRepairBudget(0)()
	defer assign.SetRepairWorkPerUnit(4)()
	const topics, partitions, members = 500, 200, 100
	rng := rand.New(rand.NewPCG(3, 5))
	subscription := func() []string {
		var ts []string
		for _, j := range rng.Perm(topics)[:topics/2] {
			ts = append(ts, fmt.Sprintf("topic-%03d", j))
		}
		return ts
	}
	b := assigntest.NewGroup().Protocol(assign.Cooperative)
	for j := range topics {
		b.Topic(fmt.Sprintf("topic-%03d", j), partitions)
	}
	for i := range members {
		b.Member(fmt.Sprintf("consumer-%03d", i), subscription()...)
	}
	g := b.Build()
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	g = assigntest.Edit(assigntest.NextGroup(g, r)).Member("consumer-new", subscription()...).Build()
	cut := false
	for followups := 0; ; followups++ {
		r = run(t, assign.CooperativeSticky(), g, nil)
		if slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "work limit") }) {
			cut = true
			// The follow-up must really happen: the result asks for it, and
			// members revoke something, which makes cooperative ones rejoin
			// at once (KIP-429).
			if !r.FollowupRequired || r.Stats.Revoked == 0 {
				t.Fatalf("follow-up %d cut short, yet FollowupRequired %v and %d revoked", followups, r.FollowupRequired, r.Stats.Revoked)
			}
		} else if err := assigntest.Check(g, r, assigntest.Balanced()); err != nil {
			t.Fatalf("follow-up %d: no warning, yet: %v", followups, err)
		}
		if !r.FollowupRequired {
			break
		}
		if followups == 10 {
			t.Fatalf("still pending after %d follow-ups", followups)
		}
		g = assigntest.NextGroup(g, r)
	}
	if !cut {
		t.Fatal("the repair never ran out of budget: the test no longer covers a plan cut short")
	}
	if err := assigntest.Check(g, r, assigntest.Balanced()); err != nil {
		t.Fatalf("settled plan: %v", err)
	}
}

// TestRepairScaleOutFromFewOwners: issue 10's burst scale-out at 2,000
// members (200,000 partitions, one or three members owning 20,000 of t0,
// with and without racks). The repair fills from the owners without a
// search per partition; the round must fit its work budget (no warning),
// be balanced, settle with one follow-up, and move only what the owners
// give up. BenchmarkScaleOut times it at up to 10,000 members.
func TestRepairScaleOutFromFewOwners(t *testing.T) {
	for _, owners := range []int{1, 3} {
		for _, racks := range []bool{false, true} {
			t.Run(fmt.Sprintf("owners=%d/racks=%v", owners, racks), func(t *testing.T) {
				g := scaleOut(2000, owners, 20000, 200000)
				if racks {
					g = withRacks(g)
				}
				r, moved := settleWithinOneFollowup(t, assign.CooperativeSticky(), g)
				kept := 0
				for _, ma := range r.Members[:owners] {
					for _, tp := range ma.Assigned {
						kept += len(tp.Partitions)
					}
				}
				if moved != 20000-kept {
					t.Fatalf("moved %d partitions; the owners kept %d of 20000, so they should have given up %d", moved, kept, 20000-kept)
				}
			})
		}
	}
}

// settleWithinOneFollowup runs a on g, and on each next group while a
// follow-up is pending: every round balanced and without a warning (it
// fits its work budget), at most one follow-up. It returns the last round
// and the partitions moved over all rounds.
func settleWithinOneFollowup(t *testing.T, a assign.Assignor, g *assign.Group) (r *assign.Result, moved int) {
	t.Helper()
	for followups := 0; ; g = assigntest.NextGroup(g, r) {
		r = run(t, a, g, nil, balanced)
		if len(r.Warnings) > 0 {
			t.Fatalf("follow-up %d: warnings %q", followups, r.Warnings)
		}
		moved += r.Stats.Moved
		if !r.FollowupRequired {
			return r, moved
		}
		if followups++; followups > 1 {
			t.Fatalf("still pending after %d follow-ups (%d partitions)", followups, r.Stats.Pending)
		}
	}
}
