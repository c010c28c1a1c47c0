package assign_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// cooperativeAssignors are the cooperative-sticky versions every property
// runs against.
var cooperativeAssignors = []assign.Assignor{assign.CooperativeSticky(), assign.CooperativeStickyPerTopic()}

// converge runs rounds until no follow-up is required and returns how many
// follow-ups it took; it fails past limit.
func converge(t *rapid.T, a assign.Assignor, g *assign.Group, limit int, opts ...assign.Option) (*assign.Group, *assign.Result, int) {
	for followups := 0; ; followups++ {
		r := run(t, a, g, opts, balanced)
		if !r.FollowupRequired {
			return g, r, followups
		}
		if followups == limit {
			t.Fatalf("no convergence after %d follow-ups; pending %v", limit, r.Pending)
		}
		g = assigntest.NextGroup(g, r)
	}
}

// Every random group, with stale, conflicting and rack-mismatched
// ownership, gets a valid, balanced result that does not depend on the
// order of the members.
func TestCooperativeStickyPropertyValidBalancedDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SampledFrom(cooperativeAssignors).Draw(t, "assignor")
		g := assigntest.GroupGen(assigntest.Owned(), assigntest.Conflicts(), assigntest.WithRacks(),
			assigntest.MissingTopics(), assigntest.Members(0, 12)).Draw(t, "group")
		r := run(t, a, g, nil, balanced)

		h := assigntest.Edit(g).Build()
		perm := rapid.Permutation(h.Members).Draw(t, "member order")
		h.Members = perm
		r2 := run(t, a, h, nil, balanced)
		for i := range r.Members {
			if !equalTPs(r.Members[i].Assigned, r2.Members[i].Assigned) || !equalTPs(r.Members[i].Revoked, r2.Members[i].Revoked) {
				t.Fatalf("member order changed %s's result: %v vs %v", r.Members[i].ID, r.Members[i].Assigned, r2.Members[i].Assigned)
			}
		}
		if !equalTPs(r.Pending, r2.Pending) {
			t.Fatalf("member order changed pending: %v vs %v", r.Pending, r2.Pending)
		}
	})
}

// The eager sticky assignor and the other assignors stay valid on the same
// inputs.
func TestStickyPropertyValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.WithRacks(), assigntest.MissingTopics(), assigntest.Members(0, 12)).Draw(t, "group")
		run(t, assign.Sticky(), g, nil, balanced)
	})
}

// From a converged group, one membership change (a member joins or leaves)
// converges with at most one follow-up; any change (subscriptions too)
// with at most two; across a random sequence, nothing is ever assigned to
// two members (the checker's owned-by-other rule, each round). With racks,
// KIP-881 realignment may take one follow-up more, rarely (about 1 in 70
// random scale-outs, TestRackRealignScaleOutFollowups): the first round's
// repair can move an owner's on-rack partition while it keeps an off-rack
// one that realignment cannot move within the balance that round; the
// follow-up's placement frees a partner for it (docs/engine.md).
func TestCooperativeStickyPropertyConvergence(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SampledFrom(cooperativeAssignors).Draw(t, "assignor")
		equal := rapid.Bool().Draw(t, "equal subscriptions")
		opts := []assigntest.GenOption{assigntest.Members(1, 8), assigntest.Topics(1, 4), assigntest.Partitions(1, 16),
			assigntest.Protocol(assign.Cooperative)}
		racks := rapid.Bool().Draw(t, "racks")
		if racks {
			opts = append(opts, assigntest.WithRacks())
		}
		if equal {
			opts = append(opts, assigntest.EqualSubscriptions())
		}
		g := assigntest.GroupGen(opts...).Draw(t, "group")
		g, r, _ := converge(t, a, g, 2)
		topics := make([]string, 0, len(g.Topics))
		for _, tp := range g.Topics {
			topics = append(topics, tp.Name)
		}
		steps := rapid.IntRange(1, 6).Draw(t, "steps")
		for step := range steps {
			next := assigntest.Edit(assigntest.NextGroup(g, r))
			kind := rapid.IntRange(0, 2).Draw(t, "change")
			if equal && kind == 2 {
				kind = 0
			}
			limit := 1
			switch kind {
			case 0: // join
				id := "join" + string(rune('a'+step))
				subs := g.Members[0].Topics
				if !equal {
					subs = rapid.SliceOfDistinct(rapid.SampledFrom(topics), func(s string) string { return s }).Draw(t, "subs")
				}
				next.Member(id, subs...)
			case 1: // leave
				if len(g.Members) < 2 {
					continue
				}
				next.Remove(rapid.SampledFrom(g.Members).Draw(t, "leaver").ID)
			case 2: // a member changes its subscription
				m := rapid.SampledFrom(g.Members).Draw(t, "changer")
				subs := rapid.SliceOfDistinct(rapid.SampledFrom(topics), func(s string) string { return s }).Draw(t, "new subs")
				next.Remove(m.ID).Member(m.ID, subs...)
				for _, tp := range assigned(r, m.ID) {
					next.Owns(m.ID, tp.Topic, tp.Partitions...)
				}
				next.Gen(m.ID, g.Generation)
				limit = 2
			}
			g, r, _ = converge(t, a, next.Build(), limit)
		}
	})
}

// A member that leaves an equal-subscription group: only its partitions
// move. A member that joins: exactly the minimum moves. With racks and
// realignment on (the default), partitions kept off their owner's rack may
// move as well, and only those: every other move is as without racks.
func TestCooperativeStickyPropertyMinimalMoves(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SampledFrom(cooperativeAssignors).Draw(t, "assignor")
		opts := []assigntest.GenOption{assigntest.EqualSubscriptions(), assigntest.Members(2, 10), assigntest.Partitions(0, 20),
			assigntest.Protocol(assign.Cooperative)}
		var runOpts []assign.Option
		realigning := false
		if rapid.Bool().Draw(t, "racks") {
			opts = append(opts, assigntest.WithRacks())
			keep := rapid.Bool().Draw(t, "keep misaligned")
			runOpts = append(runOpts, assign.WithKeepMisalignedRacks(keep))
			realigning = !keep
		}
		g := assigntest.GroupGen(opts...).Draw(t, "group")
		g, r, _ := converge(t, a, g, 2, runOpts...)
		total := r.Stats.Partitions

		leaver := rapid.SampledFrom(g.Members).Draw(t, "leaver").ID
		left := assigntest.Edit(assigntest.NextGroup(g, r)).Remove(leaver).Build()
		rl := run(t, a, left, runOpts, balanced)
		if aligned, off := rackMoves(left, r, rl); aligned != 0 || !realigning && (off != 0 || rl.FollowupRequired) {
			t.Fatalf("leave moved %d partitions of staying members on their racks and %d off them", aligned, off)
		}

		joined := assigntest.Edit(assigntest.NextGroup(g, r)).Member("zz-new", g.Members[0].Topics...).Build()
		rj := run(t, a, joined, runOpts, balanced)
		want := total / (len(g.Members) + 1)
		if aligned, _ := rackMoves(joined, r, rj); rj.Stats.Moved < want || aligned > want || !realigning && rj.Stats.Moved != want {
			t.Fatalf("join moved %d partitions, %d of them on their owners' racks; the minimum is %d", rj.Stats.Moved, aligned, want)
		}
	})
}

// FuzzRun feeds random groups (from the fuzzer's bytes) to every assignor:
// never a panic, always a valid result or an InputError.
func FuzzRun(f *testing.F) {
	addFuzzRunSeeds(f)
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		g := fuzzRunGroup(t)
		for _, a := range assign.Assignors() {
			if !assign.Supports(a, g.Protocol) && g.Protocol != assign.ProtocolUnspecified {
				continue
			}
			run(t, a, g, nil)
		}
	}))
}
