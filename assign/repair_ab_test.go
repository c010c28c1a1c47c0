package assign_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// TestRepairMatchesReference: the balance repair produces, byte for byte,
// the plan of the reference repair (repair_ref_test.go: one search over
// all members per step, which a scale-out pays once per partition moved),
// on random groups of every shape the property tests draw, on scale-outs
// (a few members owning much, many newcomers, unequal subscriptions, some
// with racks), and on the benchmark's scenarios with unequal
// subscriptions. Neither repair has a work limit here, so both run to the
// end.
func TestRepairMatchesReference(t *testing.T) {
	defer assign.SetMinRepairBudget(1 << 62)()
	t.Run("random", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			a := rapid.SampledFrom(append([]assign.Assignor{assign.Sticky()}, cooperativeAssignors...)).Draw(t, "assignor")
			g := assigntest.GroupGen(assigntest.Owned(), assigntest.Conflicts(), assigntest.WithRacks(),
				assigntest.Members(1, 16), assigntest.Partitions(0, 40)).Draw(t, "group")
			if rapid.Bool().Draw(t, "without a rack tally") {
				defer assign.WithoutRackTally()()
			}
			sameAsReference(t, a, g)
		})
	})
	t.Run("scale-out", func(t *testing.T) {
		for seed := range uint64(300) {
			g := scaleOutGroup(rand.New(rand.NewPCG(seed, 10)))
			for _, a := range cooperativeAssignors {
				sameAsReference(t, a, g)
			}
		}
	})
	t.Run("scale-out, picks without a rack tally", func(t *testing.T) {
		defer assign.WithoutRackTally()()
		for seed := range uint64(300) {
			if g := scaleOutGroup(rand.New(rand.NewPCG(seed, 10))); g.Topics[0].Racks != nil {
				sameAsReference(t, assign.CooperativeSticky(), g)
			}
		}
	})
	t.Run("issue 10, small", func(t *testing.T) {
		for _, n := range []int{2, 3, 50, 301} {
			for _, owners := range []int{1, 2, 3, 7, 40} {
				g := scaleOut(n, min(owners, n), 10*n, 3*n*n+7)
				sameAsReference(t, assign.CooperativeSticky(), g)
				sameAsReference(t, assign.CooperativeSticky(), unevenOwners(g, min(owners, n), 10*n))
			}
		}
	})
	t.Run("scenarios", func(t *testing.T) {
		if testing.Short() {
			t.Skip("builds the benchmark's scenarios")
		}
		for _, name := range []string{"U", "U-leave", "R", "R-join"} {
			sameAsReference(t, assign.CooperativeSticky(), benchScenario(name).group)
		}
	})
}

// sameAsReference fails unless a's plan for g is the one the reference
// repair gives.
func sameAsReference(t interface {
	Helper()
	Fatalf(string, ...any)
}, a assign.Assignor, g *assign.Group) {
	t.Helper()
	got, err := assign.Run(a, g)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	restore := assign.UseReferenceRepair()
	want, err := assign.Run(a, g)
	restore()
	if err != nil {
		t.Fatalf("Run with the reference repair: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: %d members: moved %d (reference %d), imbalance %d (reference %d): plans differ",
			assign.Ref(a), len(g.Members), got.Stats.Moved, want.Stats.Moved, got.Stats.Imbalance, want.Stats.Imbalance)
	}
}

// scaleOutGroup draws a scale-out: up to six members (or up to half of
// them) owning most
// partitions (sometimes all, sometimes of topics they no longer read),
// many newcomers, each member reading a random subset of up to five topics
// or all of them, racks on some draws (on all where subscriptions are
// equal).
func scaleOutGroup(rng *rand.Rand) *assign.Group {
	g := &assign.Group{Generation: 7, Protocol: assign.Cooperative}
	nTopics := 1 + rng.IntN(5)
	equal := rng.IntN(5) == 0 // with racks, so the general plan runs
	racked := equal || rng.IntN(4) == 0
	for t := range nTopics {
		top := assign.Topic{Name: fmt.Sprintf("t%d", t), Partitions: int32(1 + rng.IntN(400))}
		if racked {
			top.Racks = make([][]string, top.Partitions)
			for p := range top.Racks {
				top.Racks[p] = []string{fmt.Sprintf("az%d", rng.IntN(3))}
			}
		}
		g.Topics = append(g.Topics, top)
	}
	n := 2 + rng.IntN(120)
	owners := min(1+rng.IntN(6), n)
	if rng.IntN(4) == 0 {
		owners = 1 + rng.IntN(n/2+1)
	}
	for m := range n {
		mb := assign.Member{ID: fmt.Sprintf("m%03d", m), Generation: assign.NoGeneration}
		for t := range nTopics {
			if equal || t == 0 && rng.IntN(3) > 0 || rng.IntN(2) == 0 {
				mb.Topics = append(mb.Topics, fmt.Sprintf("t%d", t))
			}
		}
		if racked && rng.IntN(4) > 0 {
			mb.Rack = fmt.Sprintf("az%d", rng.IntN(3))
		}
		g.Members = append(g.Members, mb)
	}
	for _, top := range g.Topics {
		share := rng.IntN(4) // 0: nobody owned the topic
		for p := range top.Partitions {
			if share == 0 || rng.IntN(4) >= share {
				continue
			}
			m := &g.Members[rng.IntN(owners)]
			if k := len(m.Owned); k > 0 && m.Owned[k-1].Topic == top.Name {
				m.Owned[k-1].Partitions = append(m.Owned[k-1].Partitions, p)
			} else {
				m.Owned = append(m.Owned, assign.TopicPartitions{Topic: top.Name, Partitions: []int32{p}})
			}
			m.Generation = 6
		}
	}
	return g
}

// unevenOwners returns g with its first owners members owning, instead,
// shares of partitions 0 to owned-1 of t0 that grow with their index.
func unevenOwners(g *assign.Group, owners, owned int) *assign.Group {
	g = assigntest.Edit(g).Build()
	next := int32(0)
	for j := range owners {
		ps := make([]int32, 2*owned*(j+1)/(owners*(owners+1)))
		for i := range ps {
			ps[i] = next
			next++
		}
		g.Members[j].Owned = []assign.TopicPartitions{{Topic: "t0", Partitions: ps}}
	}
	return g
}
