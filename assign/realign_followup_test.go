package assign_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// scaleOutTally sums what rack-aware cooperative scale-outs cost: rounds
// (the first and its follow-ups), the most follow-ups one scale-out took,
// how many took more than one, partitions moved, and partitions left off
// their consumers' racks once settled.
type scaleOutTally struct {
	rounds, mostFollowups, overOne, moved, offRack int
}

// rackScaleOut is a random rack-aware group: members on three racks (one
// in ten without a rack), topics whose partitions have replicas on two of
// the three racks, equal subscriptions or not; and the members that join.
func rackScaleOut(rng *rand.Rand) (g *assign.Group, joiners []assign.Member) {
	racks := []string{"az1", "az2", "az3"}
	rack := func() string {
		if rng.IntN(10) == 0 {
			return ""
		}
		return racks[rng.IntN(3)]
	}
	g = &assign.Group{Generation: 1, Protocol: assign.Cooperative}
	var names []string
	for t := range 1 + rng.IntN(4) {
		name := fmt.Sprintf("t%d", t)
		names = append(names, name)
		n := 4 + rng.IntN(40)
		top := assign.Topic{Name: name, Partitions: int32(n), Racks: make([][]string, n)}
		for p := range top.Racks {
			skip := rng.IntN(3)
			for i, r := range racks {
				if i != skip {
					top.Racks[p] = append(top.Racks[p], r)
				}
			}
		}
		g.Topics = append(g.Topics, top)
	}
	equal := rng.IntN(2) == 0
	subs := func() []string {
		if equal {
			return names
		}
		var s []string
		for _, n := range names {
			if rng.IntN(2) == 0 {
				s = append(s, n)
			}
		}
		if s == nil {
			s = names[:1]
		}
		return s
	}
	for i := range 2 + rng.IntN(6) {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("m%02d", i), Topics: subs(), Rack: rack(), Generation: -1})
	}
	for i := range 1 + rng.IntN(4) {
		joiners = append(joiners, assign.Member{ID: fmt.Sprintf("n%02d", i), Topics: subs(), Rack: rack(), Generation: -1})
	}
	return g, joiners
}

// settle runs rounds of a from g until no follow-up is required (at most
// limit follow-ups) and returns the last group and result, the rounds run
// and the partitions moved.
func settle(t *testing.T, a assign.Assignor, g *assign.Group, opts []assign.Option, limit int) (*assign.Group, *assign.Result, int, int) {
	t.Helper()
	moved := 0
	for rounds := 1; ; rounds++ {
		r := run(t, a, g, opts, balanced)
		moved += r.Stats.Moved
		if !r.FollowupRequired {
			return g, r, rounds, moved
		}
		if rounds > limit {
			t.Fatalf("no convergence after %d follow-ups; pending %v", limit, r.Pending)
		}
		g = assigntest.NextGroup(g, r)
	}
}

// measureScaleOuts settles n random rack-aware groups, adds members to
// each and tallies what settling the scale-out costs.
func measureScaleOuts(t *testing.T, a assign.Assignor, n int, opts []assign.Option) scaleOutTally {
	rng := rand.New(rand.NewPCG(881, 2))
	var s scaleOutTally
	for range n {
		g, joiners := rackScaleOut(rng)
		g, r, _, _ := settle(t, a, g, opts, 4)
		next := assigntest.NextGroup(g, r)
		next.Members = append(next.Members, joiners...)
		g, r, rounds, moved := settle(t, a, next, opts, 4)
		s.rounds += rounds
		s.mostFollowups = max(s.mostFollowups, rounds-1)
		if rounds > 2 {
			s.overOne++
		}
		s.moved += moved
		s.offRack += offRackCount(g, r)
	}
	return s
}

// Random rack-aware cooperative scale-outs, keeping owners off their racks
// and realigning (KIP-881), run with -v for the figures. Realignment leaves
// fewer partitions off their racks, and every scale-out settles in one
// follow-up, as without racks: the first round plays the follow-up ahead
// (lookahead), so a partition that only the follow-up's placement could
// bring home is revoked in the first round, not in a second follow-up.
func TestRackRealignScaleOutFollowups(t *testing.T) {
	const n = 1000
	for _, a := range cooperativeAssignors {
		keep := measureScaleOuts(t, a, n, []assign.Option{assign.WithKeepMisalignedRacks(true)})
		re := measureScaleOuts(t, a, n, nil)
		for _, x := range []struct {
			name string
			s    scaleOutTally
		}{{"keep owners", keep}, {"realign", re}} {
			t.Logf("%s %s: %d scale-outs, rounds %d, most follow-ups %d, over one follow-up %d, moves %d, off-rack %d",
				assign.Ref(a), x.name, n, x.s.rounds, x.s.mostFollowups, x.s.overOne, x.s.moved, x.s.offRack)
		}
		if re.offRack > keep.offRack {
			t.Errorf("%s: realignment left %d partitions off their racks, keeping owners %d", assign.Ref(a), re.offRack, keep.offRack)
		}
		if re.mostFollowups > 1 || keep.mostFollowups > 1 {
			t.Errorf("%s: scale-outs took up to %d follow-ups realigning, %d keeping owners", assign.Ref(a), re.mostFollowups, keep.mostFollowups)
		}
	}
}
