package assign_test

import (
	"errors"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// drawWeights gives some topics of g weights: idle (0), light or hot
// partitions, and lists that stop short of the partition count.
func drawWeights(t *rapid.T, g *assign.Group) []assign.TopicWeights {
	var out []assign.TopicWeights
	for _, top := range g.Topics {
		if rapid.IntRange(0, 4).Draw(t, "weighted") == 0 {
			continue
		}
		n := int(top.Partitions)
		if rapid.Bool().Draw(t, "short") {
			n = rapid.IntRange(0, n).Draw(t, "given")
		}
		ws := make([]float64, n)
		for i := range ws {
			switch rapid.IntRange(0, 5).Draw(t, "kind") {
			case 0:
				ws[i] = 0
			case 1:
				ws[i] = rapid.Float64Range(50, 1000).Draw(t, "hot")
			default:
				ws[i] = rapid.Float64Range(0, 10).Draw(t, "light")
			}
		}
		out = append(out, assign.TopicWeights{Topic: top.Name, Weights: ws})
	}
	if out == nil && len(g.Topics) > 0 {
		// Weights for no partition: planned with weight 1 each, not by
		// cooperative-sticky's count rule.
		out = []assign.TopicWeights{{Topic: g.Topics[0].Name}}
	}
	return out
}

// fullWeights lists every partition's weight as the engine fills it in.
func fullWeights(g *assign.Group) []assign.TopicWeights {
	w := weightOf(g)
	out := make([]assign.TopicWeights, len(g.Topics))
	for i, top := range g.Topics {
		out[i] = assign.TopicWeights{Topic: top.Name, Weights: make([]float64, top.Partitions)}
		for p := range top.Partitions {
			out[i].Weights[p] = w(top.Name, p)
		}
	}
	return out
}

func withWeights(g *assign.Group, ws []assign.TopicWeights) *assign.Group {
	h := assigntest.Edit(g).Build()
	h.Weights = ws
	return h
}

// near compares loads summed in different orders.
func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

// Random groups with random weights, stale, conflicting and rack-mismatched
// ownership, either protocol: a valid result that does not depend on the
// members' order, with load stats that match the assignment.
func TestLoadStickyPropertyValidDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.Owned(), assigntest.Conflicts(), assigntest.WithRacks(),
			assigntest.MissingTopics(), assigntest.Members(1, 10)).Draw(t, "group")
		g.Protocol = rapid.SampledFrom([]assign.RebalanceProtocol{assign.Cooperative, assign.Eager}).Draw(t, "protocol")
		g.Weights = drawWeights(t, g)
		r := run(t, assign.LoadSticky(), g, nil)

		h := assigntest.Edit(g).Build()
		h.Weights = g.Weights
		h.Members = rapid.Permutation(h.Members).Draw(t, "member order")
		r2 := run(t, assign.LoadSticky(), h, nil)
		for i := range r.Members {
			if !equalTPs(r.Members[i].Assigned, r2.Members[i].Assigned) || !equalTPs(r.Members[i].Revoked, r2.Members[i].Revoked) {
				t.Fatalf("member order changed %s's result", r.Members[i].ID)
			}
		}
		if r.Load == nil || *r.Load != *r2.Load {
			t.Fatalf("load stats %+v vs %+v", r.Load, r2.Load)
		}
		if g.Protocol == assign.Eager {
			hi := 0.0
			for _, l := range memberLoads(g, r) {
				hi = max(hi, l)
			}
			if !near(hi, r.Load.Max) {
				t.Fatalf("largest load %v, stats say %v", hi, r.Load.Max)
			}
		}
	})
}

// The largest load is within the tolerance and hysteresis of the lower
// bound, or the most loaded member holds no partition that any subscriber
// under the count cap could take and end lighter than it is (no single
// move helps; partitions are too coarse or the count cap binds). With
// equal subscriptions no member exceeds the count cap.
func TestLoadStickyPropertyBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.Owned(), assigntest.Members(1, 10), assigntest.Partitions(1, 24),
			assigntest.Protocol(assign.Eager)).Draw(t, "group")
		g.Weights = drawWeights(t, g)
		tol := rapid.Float64Range(0, 0.3).Draw(t, "tolerance")
		hyst := rapid.Float64Range(0, 0.2).Draw(t, "hysteresis")
		skew := rapid.IntRange(0, 4).Draw(t, "max count skew")
		r := run(t, assign.LoadSticky(), g, []assign.Option{assign.WithLoadTolerance(tol),
			assign.WithLoadHysteresis(hyst), assign.WithMaxCountSkew(skew)})
		if len(g.Members) == 0 || r.Stats.Partitions == 0 {
			return
		}
		w := weightOf(g)
		loads := memberLoads(g, r)
		counts := map[string]int{}
		heaviestPartition, total := 0.0, 0.0
		for _, ma := range r.Members {
			for _, tp := range ma.Assigned {
				counts[ma.ID] += len(tp.Partitions)
				for _, p := range tp.Partitions {
					heaviestPartition = max(heaviestPartition, w(tp.Topic, p))
					total += w(tp.Topic, p)
				}
			}
		}
		n := len(g.Members)
		if lb := max(total/float64(n), heaviestPartition); r.Load.Bound < lb && !near(r.Load.Bound, lb) {
			t.Fatalf("bound %v below max(mean, heaviest partition) %v", r.Load.Bound, lb)
		}
		share := (r.Stats.Partitions + n - 1) / n
		if skew == 0 {
			skew = share
		}
		cap := share + skew
		if equalSubscriptions(g) {
			for id, c := range counts {
				if c > cap {
					t.Fatalf("%s holds %d partitions, cap %d", id, c, cap)
				}
			}
		}
		hi := 0.0
		for _, l := range loads {
			hi = max(hi, l)
		}
		if hi <= r.Load.Bound*(1+tol+hyst) || near(hi, r.Load.Bound*(1+tol+hyst)) {
			return
		}
		subscribers := map[string][]string{}
		for _, m := range g.Members {
			for _, topic := range m.Topics {
				subscribers[topic] = append(subscribers[topic], m.ID)
			}
		}
		for _, ma := range r.Members {
			if loads[ma.ID] != hi {
				continue
			}
			stuck := true
			for _, tp := range ma.Assigned {
				for _, p := range tp.Partitions {
					for _, other := range subscribers[tp.Topic] {
						if x := w(tp.Topic, p); other != ma.ID && counts[other] < cap && x > 0 && loads[other]+x < hi && !near(loads[other]+x, hi) {
							stuck = false
						}
					}
				}
			}
			if stuck {
				return
			}
		}
		t.Fatalf("largest load %v above %v (bound %v) while a single move would lower it", hi, r.Load.Bound*(1+tol+hyst), r.Load.Bound)
	})
}

func equalSubscriptions(g *assign.Group) bool {
	exists := map[string]bool{}
	for _, top := range g.Topics {
		exists[top.Name] = top.Partitions > 0
	}
	var first []string
	for i, m := range g.Members {
		var s []string
		for _, topic := range m.Topics {
			if exists[topic] {
				s = append(s, topic)
			}
		}
		slices.Sort(s)
		if i > 0 && !slices.Equal(s, first) {
			return false
		}
		first = s
	}
	return true
}

// convergeLoad runs rounds until none needs a follow-up; it fails past
// limit follow-ups.
func convergeLoad(t *rapid.T, g *assign.Group, limit int, opts ...assign.Option) (*assign.Group, *assign.Result) {
	for followups := 0; ; followups++ {
		r := run(t, assign.LoadSticky(), g, opts)
		if !r.FollowupRequired {
			return g, r
		}
		if followups == limit {
			t.Fatalf("no convergence after %d follow-ups; pending %v", limit, r.Pending)
		}
		g = withWeights(assigntest.NextGroup(g, r), g.Weights)
	}
}

// A steady group with steady load moves nothing, rebalance after
// rebalance; load that drifts by less than the hysteresis moves nothing
// either; and after the hot spots shift, the group converges again within
// a few follow-ups, every round cooperative-safe.
func TestLoadStickyPropertySteadyAndHysteresis(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		protocol := rapid.SampledFrom([]assign.RebalanceProtocol{assign.Cooperative, assign.Eager}).Draw(t, "protocol")
		g := assigntest.GroupGen(assigntest.Members(1, 6), assigntest.Partitions(4, 40), assigntest.Topics(1, 3),
			assigntest.Protocol(protocol)).Draw(t, "group")
		g.Weights = drawWeights(t, g)
		g, r := convergeLoad(t, g, 4)

		next := withWeights(assigntest.NextGroup(g, r), g.Weights)
		again := run(t, assign.LoadSticky(), next, nil)
		if again.Stats.Moved != 0 || again.Stats.Revoked != 0 || again.FollowupRequired {
			t.Fatalf("steady group: moved %d, revoked %d, follow-up %t", again.Stats.Moved, again.Stats.Revoked, again.FollowupRequired)
		}

		// Drift: every weight scaled by at most 1±eps, where
		// (1+eps)/(1-eps) keeps a member within the tolerance within the
		// tolerance plus the hysteresis (at the top; at the floor the
		// bound on eps is looser).
		// The precondition: the steady plan is within the tolerance at
		// both ends (with equal subscriptions the least loaded member
		// must carry the mean×(1−tolerance)).
		lo := math.Inf(1)
		for _, l := range memberLoads(next, again) {
			lo = min(lo, l)
		}
		floorMet := !equalSubscriptions(g) || lo >= r.Load.Mean*(1-assign.DefaultLoadTolerance)
		if r.Load.Max <= r.Load.Bound*(1+assign.DefaultLoadTolerance) && floorMet {
			x := assign.DefaultLoadHysteresis / (1 + assign.DefaultLoadTolerance)
			eps := 0.99 * x / (2 + x)
			drift := fullWeights(next)
			for i := range drift {
				for j := range drift[i].Weights {
					drift[i].Weights[j] *= 1 + rapid.Float64Range(-eps, eps).Draw(t, "drift")
				}
			}
			d := run(t, assign.LoadSticky(), withWeights(next, drift), nil)
			if d.Stats.Moved != 0 || d.Stats.Revoked != 0 {
				t.Fatalf("drift within %.4f moved %d, revoked %d", eps, d.Stats.Moved, d.Stats.Revoked)
			}
		}

		// The hot spots shift.
		shifted := withWeights(next, drawWeights(t, next))
		convergeLoad(t, shifted, 4)
	})
}

// The lower bound never exceeds the best plan's largest load, found by
// trying every plan of small groups with unequal subscriptions.
func TestLoadBoundBelowOptimum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.Members(1, 3), assigntest.Topics(1, 3), assigntest.Partitions(1, 3)).Draw(t, "group")
		g.Weights = drawWeights(t, g)
		r := run(t, assign.LoadSticky(), g, nil)
		w := weightOf(g)
		type part struct {
			w    float64
			subs []int
		}
		var parts []part
		for _, top := range g.Topics {
			var subs []int
			for i, m := range g.Members {
				if slices.Contains(m.Topics, top.Name) {
					subs = append(subs, i)
				}
			}
			if len(subs) == 0 {
				continue
			}
			for p := range top.Partitions {
				parts = append(parts, part{w(top.Name, p), subs})
			}
		}
		best := math.Inf(1)
		loads := make([]float64, len(g.Members))
		var try func(i int)
		try = func(i int) {
			if i == len(parts) {
				best = min(best, slices.Max(loads))
				return
			}
			for _, m := range parts[i].subs {
				loads[m] += parts[i].w
				try(i + 1)
				loads[m] -= parts[i].w
			}
		}
		try(0)
		if len(parts) == 0 {
			return
		}
		if r.Load.Bound > best && !near(r.Load.Bound, best) {
			t.Fatalf("bound %v above the optimum %v", r.Load.Bound, best)
		}
		if r.Load.Max < best && !near(r.Load.Max, best) {
			t.Fatalf("plan %v better than the optimum %v", r.Load.Max, best)
		}
	})
}

// With weights, the context ended at a random poll, with or without best
// effort: an error that is ErrStopped and context.Canceled, or a valid
// plan that is the unstopped one unless it carries the cut-short warning.
func TestLoadStickyPropertyStop(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.Owned(), assigntest.Conflicts(), assigntest.WithRacks(),
			assigntest.Members(1, 8)).Draw(t, "group")
		g.Weights = drawWeights(t, g)
		best := rapid.Bool().Draw(t, "best")
		a := assign.LoadSticky()
		want, err := assign.Run(a, g)
		if err != nil {
			t.Fatal(err)
		}
		checkStopAtDrawnPoll(t, a, g, want, best)
	})
}

// The move budget holds with weights: no round takes more than
// max_moves_per_rebalance partitions from owners that could keep them, and
// the rounds still converge.
func TestLoadStickyPropertyMoveBudget(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		protocol := rapid.SampledFrom([]assign.RebalanceProtocol{assign.Cooperative, assign.Eager}).Draw(t, "protocol")
		g := assigntest.GroupGen(assigntest.Owned(), assigntest.Members(1, 8), assigntest.Partitions(1, 30),
			assigntest.Protocol(protocol)).Draw(t, "group")
		g.Weights = drawWeights(t, g)
		budget := rapid.IntRange(1, 5).Draw(t, "budget")
		for round := 0; ; round++ {
			r := run(t, assign.LoadSticky(), g, []assign.Option{assign.WithMaxMoves(budget)})
			// Partitions whose owner no longer subscribes to their topic
			// must move, budget or not.
			forced := 0
			for _, m := range g.Members {
				for _, tp := range m.Owned {
					if !slices.Contains(m.Topics, tp.Topic) {
						forced += len(tp.Partitions)
					}
				}
			}
			if r.Stats.Moved > budget+forced {
				t.Fatalf("round %d moved %d, budget %d (+%d forced)", round, r.Stats.Moved, budget, forced)
			}
			if r.Stats.Moved == 0 && !r.FollowupRequired {
				return
			}
			if round == 60 {
				t.Fatalf("no convergence in %d rounds", round)
			}
			g = withWeights(assigntest.NextGroup(g, r), g.Weights)
		}
	})
}

// FuzzLoadSticky feeds random weighted groups (from the fuzzer's bytes)
// with random knobs to load-sticky: never a panic, always a valid result
// with load stats, or an InputError. Seeded like FuzzRun, so that `go
// test` runs it.
func FuzzLoadSticky(f *testing.F) {
	for _, s := range fuzzRunSeeds {
		f.Add(fuzzSeedInput(s))
	}
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		g := fuzzRunGroup(t)
		g.Weights = drawWeights(t, g)
		opts := []assign.Option{
			assign.WithLoadTolerance(rapid.Float64Range(-1, 2).Draw(t, "tolerance")),
			assign.WithLoadHysteresis(rapid.Float64Range(-1, 1).Draw(t, "hysteresis")),
			assign.WithMaxCountSkew(rapid.IntRange(-1, 5).Draw(t, "skew")),
			assign.WithMaxMoves(rapid.IntRange(0, 5).Draw(t, "max moves")),
		}
		r, err := assign.Run(assign.LoadSticky(), g, opts...)
		var ie *assign.InputError
		if errors.As(err, &ie) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := assigntest.Check(g, r); err != nil {
			t.Fatal(err)
		}
		if len(g.Weights) > 0 && r.Load == nil {
			t.Fatal("weights given, no load stats")
		}
	}))
}

// TestLoadStickyMakesRoom: when the most loaded member's only receiver is
// as loaded as it, the receiver first gives load to a lighter member, so
// that the first assignment is already balanced and a steady group moves
// nothing after it (found by the property above: m0 alone could take
// none of its partitions' load to m1, which was just as loaded, and the
// next round moved five partitions).
func TestLoadStickyMakesRoom(t *testing.T) {
	g := &assign.Group{Generation: 1, Protocol: assign.Cooperative,
		Members: []assign.Member{
			{ID: "m0", Topics: []string{"t"}, Generation: assign.NoGeneration},
			{ID: "m1", Topics: []string{"t", "u"}, Generation: assign.NoGeneration},
			{ID: "m2", Topics: []string{"u"}, Generation: assign.NoGeneration},
			{ID: "m3", Topics: []string{"u"}, Generation: assign.NoGeneration},
		},
		// v, which nobody subscribes to, weighs nothing.
		Topics:  []assign.Topic{{Name: "t", Partitions: 20}, {Name: "u", Partitions: 12}, {Name: "v", Partitions: 4}},
		Weights: []assign.TopicWeights{{Topic: "u", Weights: []float64{64, 0, 64}}, {Topic: "v", Weights: []float64{0}}},
	}
	first, err := assign.Run(assign.LoadSticky(), g)
	if err != nil {
		t.Fatal(err)
	}
	if within := first.Load.Bound * (1 + assign.DefaultLoadTolerance); first.Load.Max > within {
		t.Errorf("first assignment: max load %.1f over the bound %.1f and its tolerance (%.1f)", first.Load.Max, first.Load.Bound, within)
	}
	next := assigntest.NextGroup(g, first)
	next.Weights = g.Weights
	again, err := assign.Run(assign.LoadSticky(), next)
	if err != nil {
		t.Fatal(err)
	}
	if again.Stats.Moved != 0 || again.FollowupRequired {
		t.Errorf("steady group: moved %d, follow-up %t", again.Stats.Moved, again.FollowupRequired)
	}
}
