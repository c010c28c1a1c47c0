package policy_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/policytest"
)

// cappableAssignors are the runnable assignors a capped or frozen rule for
// cooperative-sticky groups can select: every version the engine lists.
func cappableAssignors(t *testing.T) []assign.Assignor {
	var out []assign.Assignor
	for _, a := range assign.Assignors() {
		if assign.Supports(a, assign.Cooperative) && assign.Supports(a, assign.Eager) {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		t.Fatal("no assignor supports both protocols")
	}
	return out
}

func limitsPolicy(t *testing.T, a assign.Assignor, maxMoves int) *policy.Source {
	t.Helper()
	p := mustParse(t, fmt.Sprintf(`version: 1
rules:
  - name: capped
    match: {group_prefixes: [capped-], protocols: [cooperative-sticky]}
    assignor: %[1]s
    params: {max_moves_per_rebalance: %[2]d}
  - name: frozen
    match: {group_prefixes: [frozen-], protocols: [cooperative-sticky]}
    assignor: %[1]s
    params: {freeze: true, max_moves_per_rebalance: 3}
`, assign.Ref(a), maxMoves))
	src := policytest.ServePolicy(t, p, policy.WithMeterProvider(newMeter(t).provider))
	return src
}

// limitScenarios are groups that need many moves: a scale-out, a
// scale-out with two topics of different sizes, and a member leaving while
// another joins.
func limitScenarios() map[string]*assign.Group {
	one := assigntest.NewGroup().Generation(3).Topic("t", 24).Member("a", "t").Member("b", "t")
	for p := int32(0); p < 24; p++ {
		one.Owns([]string{"a", "b"}[p%2], "t", p)
	}
	one.Gen("a", 2).Gen("b", 2).Member("c", "t").Member("d", "t").Member("e", "t").Member("f", "t")

	two := assigntest.NewGroup().Generation(8).Topic("big", 30).Topic("small", 6).Member("a", "big", "small")
	for p := int32(0); p < 30; p++ {
		two.Owns("a", "big", p)
	}
	two.Owns("a", "small", 0, 1, 2, 3, 4, 5).Gen("a", 7).Member("b", "big", "small").Member("c", "big", "small")

	swap := assigntest.NewGroup().Generation(4).Topic("t", 18).Member("a", "t").Member("b", "t").Member("c", "t")
	for p := int32(0); p < 18; p++ {
		swap.Owns([]string{"a", "b", "c"}[p%3], "t", p)
	}
	swap.Gen("a", 3).Gen("b", 3).Gen("c", 3).Remove("c").Member("d", "t").Member("e", "t")

	return map[string]*assign.Group{"scale-out": one.Build(), "two-topics": two.Build(), "leave-and-join": swap.Build()}
}

// rounds drives a group through rebalances: select through the policy, run
// with the selection's options, check every invariant (each partition
// assigned at most once, never to a member while another still owns it),
// then let the members install the result. It stops once a round moves
// nothing and needs no follow-up, and returns the rounds and the results.
func rounds(t *testing.T, src *policy.Source, group string, g *assign.Group, limit int, check func(round int, g *assign.Group, r *assign.Result)) []*assign.Result {
	t.Helper()
	var results []*assign.Result
	for round := 1; round <= limit; round++ {
		sel, err := src.Select(context.Background(), selection.Query{GroupID: group, ProtocolName: "cooperative-sticky", Protocol: g.Protocol})
		if err != nil {
			t.Fatal(err)
		}
		r, err := assign.Run(sel.Assignor, g, sel.Options...)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if err := assigntest.Check(g, r); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		check(round, g, r)
		results = append(results, r)
		if r.Stats.Moved == 0 && !r.FollowupRequired {
			return results
		}
		g = assigntest.NextGroup(g, r)
	}
	t.Fatalf("no convergence in %d rounds", limit)
	return nil
}

func TestMaxMovesConverges(t *testing.T) {
	for _, a := range cappableAssignors(t) {
		for _, protocol := range []assign.RebalanceProtocol{assign.Cooperative, assign.Eager} {
			for name, g0 := range limitScenarios() {
				for _, limit := range []int{1, 3, 7} {
					t.Run(fmt.Sprintf("%s/%s/%s/max%d", assign.Ref(a), protocol, name, limit), func(t *testing.T) {
						src := limitsPolicy(t, a, limit)
						g0 := assigntest.Edit(g0).Protocol(protocol).Build()
						uncapped, err := assign.Run(a, g0)
						if err != nil {
							t.Fatal(err)
						}
						need := uncapped.Stats.Moved
						total := 0
						// Each move takes at most two rounds under
						// COOPERATIVE (revoke, then assign).
						bound := 2*(need/limit+1) + 2
						results := rounds(t, src, "capped-"+name, g0, bound, func(round int, _ *assign.Group, r *assign.Result) {
							if r.Stats.Moved > limit {
								t.Fatalf("round %d moved %d partitions, cap %d", round, r.Stats.Moved, limit)
							}
							total += r.Stats.Moved
						})
						final := results[len(results)-1]
						if err := assigntest.Check(lastGroup(g0, results), final, assigntest.Balanced()); err != nil {
							t.Errorf("converged unbalanced: %v", err)
						}
						t.Logf("%d moves over %d rounds; uncapped: %d moves", total, len(results), need)
						if len(results) < 2 && need > limit {
							t.Errorf("converged in %d round(s) though %d moves exceed the cap %d", len(results), need, limit)
						}
					})
				}
			}
		}
	}
}

func TestFreezeMovesNothing(t *testing.T) {
	for _, a := range cappableAssignors(t) {
		for _, protocol := range []assign.RebalanceProtocol{assign.Cooperative, assign.Eager} {
			for name, g0 := range limitScenarios() {
				t.Run(fmt.Sprintf("%s/%s/%s", assign.Ref(a), protocol, name), func(t *testing.T) {
					src := limitsPolicy(t, a, 1)
					// A new topic gives the frozen group partitions nobody
					// owns, which freeze still places.
					g := assigntest.Edit(g0).Protocol(protocol).Topic("fresh", 5).Build()
					for _, m := range g.Members {
						g = assigntest.Edit(g).Member(m.ID, append(m.Topics, "fresh")...).Build()
					}
					before := ownersOf(g)
					results := rounds(t, src, "frozen-"+name, g, 3, func(round int, _ *assign.Group, r *assign.Result) {
						if r.Stats.Moved != 0 || r.Stats.Revoked != 0 || r.FollowupRequired {
							t.Fatalf("round %d: moved %d, revoked %d, follow-up %t under freeze", round, r.Stats.Moved, r.Stats.Revoked, r.FollowupRequired)
						}
					})
					after := assigntest.Owners(results[0])
					for tp, owner := range before {
						if after[tp] != owner && memberOf(g, owner) {
							t.Errorf("%v moved from %s to %s", tp, owner, after[tp])
						}
					}
					for p := int32(0); p < 5; p++ {
						if after[assigntest.TP{Topic: "fresh", Partition: p}] == "" {
							t.Errorf("fresh-%d was not placed", p)
						}
					}
				})
			}
		}
	}
}

// lastGroup replays results to get the group the last one was computed for.
func lastGroup(g *assign.Group, results []*assign.Result) *assign.Group {
	for _, r := range results[:len(results)-1] {
		g = assigntest.NextGroup(g, r)
	}
	return g
}

func ownersOf(g *assign.Group) map[assigntest.TP]string {
	out := make(map[assigntest.TP]string)
	for _, m := range g.Members {
		for _, tp := range m.Owned {
			for _, p := range tp.Partitions {
				out[assigntest.TP{Topic: tp.Topic, Partition: p}] = m.ID
			}
		}
	}
	return out
}

func memberOf(g *assign.Group, id string) bool {
	for _, m := range g.Members {
		if m.ID == id {
			return true
		}
	}
	return false
}
