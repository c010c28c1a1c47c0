package assign_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// stopShape is a group on which the stop tests end the context at chosen
// polls.
type stopShape struct {
	name string
	a    assign.Assignor
	g    *assign.Group
	opts []assign.Option
}

// bigOwner is a scale-out whose plan needs the balance repair: one member
// owns all of orders, the others are new and also read audit.
func bigOwner(proto assign.RebalanceProtocol, n int32) *assign.Group {
	owned := make([]int32, n)
	for i := range owned {
		owned[i] = int32(i)
	}
	b := assigntest.NewGroup().Protocol(proto).Topic("orders", n).Topic("audit", 10).
		Member("c0", "orders").Owns("c0", "orders", owned...).Gen("c0", 1)
	for i := 1; i <= 4; i++ {
		b.Member(fmt.Sprintf("c%d", i), "orders", "audit")
	}
	return b.Generation(2).Build()
}

func stopShapes() []stopShape {
	unequal := func(proto assign.RebalanceProtocol) *assigntest.GroupBuilder {
		return assigntest.NewGroup().Protocol(proto).Topic("a", 13).Topic("b", 13).Topic("c", 7).
			Member("m0", "a", "b").Member("m1", "a", "b", "c").Member("m2", "a", "b").
			Member("m3", "b", "c").Member("m4", "a", "b", "c").Member("m5", "c")
	}
	equal := assigntest.NewGroup().Protocol(assign.Cooperative).Topic("x", 20).Topic("y", 20).Topic("z", 20).
		Member("e0", "x", "y", "z").Member("e1", "x", "y", "z").Member("e2", "x", "y", "z").Build()
	settled := mustRunWith(assign.CooperativeSticky(), equal)
	joined := assigntest.Edit(assigntest.NextGroup(equal, settled)).
		Member("e3", "x", "y", "z").Member("e4", "x", "y", "z").Build()

	zoned := withZones(unequal(assign.Cooperative).Build())
	zonedNext := assigntest.Edit(assigntest.NextGroup(zoned, mustRunWith(assign.CooperativeSticky(), zoned))).
		Member("m6", "a", "c").Rack("m6", "az0").Build()
	return []stopShape{
		{"range", assign.Range(), unequal(assign.Eager).Build(), nil},
		{"range/racks", assign.Range(), withZones(unequal(assign.Eager).Build()), nil},
		{"roundrobin", assign.RoundRobin(), unequal(assign.Eager).Build(), nil},
		{"sticky/unequal", assign.Sticky(), unequal(assign.Eager).Build(), nil},
		{"sticky/scale-out", assign.CooperativeSticky(), bigOwner(assign.Eager, 6000), nil},
		{"cooperative-sticky@1/scale-out", assign.CooperativeSticky(), bigOwner(assign.Cooperative, 6000), nil},
		{"cooperative-sticky@1/scale-out/max-moves", assign.CooperativeSticky(), bigOwner(assign.Cooperative, 6000),
			[]assign.Option{assign.WithMaxMoves(100)}},
		{"cooperative-sticky@1/join", assign.CooperativeSticky(), joined, nil},
		{"cooperative-sticky@2/join", assign.CooperativeStickyPerTopic(), joined, nil},
		{"cooperative-sticky@2/join/freeze", assign.CooperativeStickyPerTopic(), joined,
			[]assign.Option{assign.WithFreeze(true)}},
		{"cooperative-sticky@1/racks", assign.CooperativeSticky(), zonedNext, nil},
		// The repair fills from the owner (fillFromGivers) with the rack
		// tally, which is built in the repair phase too.
		{"cooperative-sticky@1/scale-out/racks", assign.CooperativeSticky(), withZones(bigOwner(assign.Cooperative, 6000)), nil},
	}
}

func mustRunWith(a assign.Assignor, g *assign.Group) *assign.Result {
	r, err := assign.Run(a, g)
	if err != nil {
		panic(err)
	}
	return r
}

// recordPolls runs a on g under a context that never ends and returns the
// phase of every poll, in order.
func recordPolls(t *testing.T, a assign.Assignor, g *assign.Group, opts []assign.Option) (*assign.Result, []string) {
	t.Helper()
	var phases []string
	defer assign.SetPollHook(func(phase string) { phases = append(phases, phase) })()
	ctx, cancel := context.WithCancel(context.Background()) // Background's never ends: nothing to poll
	defer cancel()
	r, err := assign.Run(a, g, append(opts, assign.WithContext(ctx), assign.WithBestEffort(false))...)
	if err != nil {
		t.Fatal(err)
	}
	return r, phases
}

// stopPoints picks, per phase, the first, a middle and the last poll.
func stopPoints(phases []string) []int {
	var out []int
	for i := 0; i < len(phases); {
		j := i
		for j < len(phases) && phases[j] == phases[i] {
			j++
		}
		for _, k := range []int{i, (i + j - 1) / 2, j - 1} {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
		i = j
	}
	return out
}

// TestStopAtEveryPhase ends the context at the first, a middle and the last
// poll of every phase of several groups, with a context already past its
// deadline too, with and without best effort. Without it, the run returns
// at that very poll an error that is both ErrStopped and the context's
// cause. With it, the plan is valid; if the stop cut refinements short it
// says so, and a cooperative one either asks for a follow-up or is already
// balanced, and its follow-ups settle; if it did not, the plan is exactly
// the one a run without a context gives.
func TestStopAtEveryPhase(t *testing.T) {
	stopAtEveryPhase(t, stopShapes())
}

// TestStopAtEveryPhaseWithoutRackTally is TestStopAtEveryPhase on the
// rack-aware shapes with the picks a group with too many racks for a rack
// tally makes, which read until their choice is settled (pickSettled).
func TestStopAtEveryPhaseWithoutRackTally(t *testing.T) {
	defer assign.WithoutRackTally()()
	var racked []stopShape
	for _, s := range stopShapes() {
		if strings.Contains(s.name, "racks") && s.g.Protocol == assign.Cooperative {
			racked = append(racked, s)
		}
	}
	if len(racked) < 2 {
		t.Fatalf("%d cooperative rack-aware shapes, want the join and the scale-out", len(racked))
	}
	stopAtEveryPhase(t, racked)
}

// stopAtEveryPhase is TestStopAtEveryPhase on shapes.
func stopAtEveryPhase(t *testing.T, shapes []stopShape) {
	for _, s := range shapes {
		t.Run(s.name, func(t *testing.T) {
			want, err := assign.Run(s.a, s.g, s.opts...)
			if err != nil {
				t.Fatal(err)
			}
			r, phases := recordPolls(t, s.a, s.g, s.opts)
			if !reflect.DeepEqual(r, want) {
				t.Fatal("a context that never ends changed the plan")
			}
			seen := map[string]bool{}
			for _, p := range phases {
				seen[p] = true
			}
			for _, p := range []string{"validate", "claims", "plan", "stats", "result"} {
				if !seen[p] {
					t.Fatalf("no poll in phase %s: polls %v", p, phases)
				}
			}
			// A scale-out's repair fills from its givers (fillFromGivers,
			// with a rack tally or pickSettled where racks are): it must
			// be stoppable too.
			if strings.Contains(s.name, "scale-out") && !seen["repair"] {
				t.Fatal("no poll in the scale-out's repair")
			}
			// Rack realignment (KIP-881) is a refinement like the repair:
			// a rack-aware group's run polls in it, so that it stops too.
			if strings.Contains(s.name, "racks") && s.a != assign.Range() && !seen["realign"] {
				t.Fatalf("no poll in the rack-aware group's realignment: polls %v", slices.Compact(slices.Clone(phases)))
			}
			points := append([]int{-1}, stopPoints(phases)...) // -1: deadline passed before Run
			for _, k := range points {
				for _, best := range []bool{false, true} {
					phase := "deadline passed"
					if k >= 0 {
						phase = phases[k]
					}
					t.Run(fmt.Sprintf("poll%d/%s/best=%v", k, phase, best), func(t *testing.T) {
						stopAt(t, s, k, best, want)
					})
				}
			}
		})
	}
}

// stopAt runs s with its context ended at poll k (k < 0: before the run)
// and checks the outcome against want, the plan of an unstopped run.
func stopAt(t *testing.T, s stopShape, k int, best bool, want *assign.Result) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cause := context.Canceled
	if k < 0 {
		var cancelDeadline context.CancelFunc
		ctx, cancelDeadline = context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancelDeadline()
		cause = context.DeadlineExceeded
	}
	polls := 0
	defer assign.SetPollHook(func(string) {
		if polls == k {
			cancel()
		}
		polls++
	})()
	r, err := assign.Run(s.a, s.g, append(s.opts, assign.WithContext(ctx), assign.WithBestEffort(best))...)
	if !best {
		if r != nil || !errors.Is(err, assign.ErrStopped) || !errors.Is(err, cause) {
			t.Fatalf("got %v, %v; want no result and an error wrapping ErrStopped and %v", r, err, cause)
		}
		if k >= 0 && polls != k+1 {
			t.Fatalf("stopped at poll %d, %d polls after the context ended", k, polls-k-1)
		}
		return
	}
	if err != nil {
		t.Fatalf("best effort: %v", err)
	}
	if err := assigntest.Check(s.g, r); err != nil {
		t.Fatalf("best effort broke invariants:\n%v", err)
	}
	if !slices.Contains(r.Warnings, assign.CutShortWarning) {
		if !reflect.DeepEqual(r, want) {
			t.Fatal("no warning, yet the plan differs from an unstopped run's")
		}
		return
	}
	if s.g.Protocol != assign.Cooperative || len(s.opts) > 0 {
		// EAGER: nothing to follow up, the next rebalance refines.
		// Freeze and a cap on moves hold balance back by design.
		return
	}
	if !r.FollowupRequired {
		if err := assigntest.Check(s.g, r, assigntest.Balanced()); err != nil {
			t.Fatalf("cut short, uneven and no follow-up:\n%v", err)
		}
		return
	}
	g := s.g
	for followups := 1; r.FollowupRequired; followups++ {
		if followups > 3 {
			t.Fatalf("still pending after %d follow-ups", followups)
		}
		g = assigntest.NextGroup(g, r)
		r = run(t, s.a, g, nil)
	}
	if err := assigntest.Check(g, r, assigntest.Balanced()); err != nil {
		t.Fatalf("settled plan:\n%v", err)
	}
}

// cutAtRepair runs a on g with best effort, ending the context at the
// repair's first poll.
func cutAtRepair(t *testing.T, a assign.Assignor, g *assign.Group) *assign.Result {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	defer assign.SetPollHook(func(phase string) {
		if phase == "repair" {
			cancel()
		}
	})()
	return run(t, a, g, []assign.Option{assign.WithContext(ctx), assign.WithBestEffort(true)})
}

// TestCutShortCooperativePlanFollowsUp: a cooperative scale-out whose repair
// is cut before its first move would leave the newcomers nearly empty with
// nothing pending, so the group would never rejoin. The cut-short plan
// withholds one partition the big owner kept (it revokes it, which makes
// the group rejoin) and the follow-ups, run in full, settle balanced.
func TestCutShortCooperativePlanFollowsUp(t *testing.T) {
	g := bigOwner(assign.Cooperative, 60)
	r := cutAtRepair(t, assign.CooperativeSticky(), g)
	if !slices.Contains(r.Warnings, assign.CutShortWarning) {
		t.Fatalf("no cut-short warning: %q", r.Warnings)
	}
	if !r.FollowupRequired || r.Stats.Pending != 1 || len(revoked(r, "c0")) != 1 {
		t.Fatalf("follow-up %v, pending %v, c0 revokes %v; want one partition of c0 withheld",
			r.FollowupRequired, r.Pending, revoked(r, "c0"))
	}
	for followups := 1; r.FollowupRequired; followups++ {
		if followups > 2 {
			t.Fatalf("still pending after %d follow-ups", followups)
		}
		g = assigntest.NextGroup(g, r)
		r = run(t, assign.CooperativeSticky(), g, nil)
	}
	if err := assigntest.Check(g, r, assigntest.Balanced()); err != nil {
		t.Fatalf("settled plan:\n%v", err)
	}
}

// TestEveryRoundCutShortStillSettles: even when every round's repair is cut
// before it moves anything, each forced follow-up hands one partition from
// the most loaded member to a lighter one, so the group reaches balance and
// then stops asking for follow-ups: a deadline too short for the repair
// cannot make a group rebalance forever.
func TestEveryRoundCutShortStillSettles(t *testing.T) {
	g := bigOwner(assign.Cooperative, 30)
	for round := 0; ; round++ {
		if round > 40 {
			t.Fatalf("still following up after %d rounds", round)
		}
		r := cutAtRepair(t, assign.CooperativeSticky(), g)
		if !r.FollowupRequired {
			if err := assigntest.Check(g, r, assigntest.Balanced()); err != nil {
				t.Fatalf("round %d settled uneven:\n%v", round, err)
			}
			return
		}
		g = assigntest.NextGroup(g, r)
	}
}

// Random groups (FuzzRun's), every assignor, the context ended at a random
// poll, with or without best effort: an error that is ErrStopped and
// context.Canceled, or a valid plan that is the unstopped one unless it
// carries the cut-short warning.
func TestStopPropertyValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.Owned(), assigntest.Conflicts(), assigntest.WithRacks(),
			assigntest.MissingTopics(), assigntest.StaticMembers(), assigntest.Members(1, 8)).Draw(t, "group")
		best := rapid.Bool().Draw(t, "best")
		for _, a := range assign.Assignors() {
			if !assign.Supports(a, g.Protocol) && g.Protocol != assign.ProtocolUnspecified {
				continue
			}
			want, err := assign.Run(a, g)
			if err != nil {
				continue // invalid input: TestRunRejectsBadInput's business
			}
			checkStopAtDrawnPoll(t, a, g, want, best)
		}
	})
}

// checkStopAtDrawnPoll runs a on g once to count the polls of its context,
// then again with the context ended at a poll drawn from those, with or
// without best effort: an error that is ErrStopped and context.Canceled,
// or a valid plan that is want (the unstopped run's) unless it carries the
// cut-short warning.
func checkStopAtDrawnPoll(t *rapid.T, a assign.Assignor, g *assign.Group, want *assign.Result, best bool) {
	polls := 0
	restore := assign.SetPollHook(func(string) { polls++ })
	counting, stop := context.WithCancel(context.Background())
	_, _ = assign.Run(a, g, assign.WithContext(counting))
	stop()
	restore()
	if polls == 0 {
		t.Fatalf("%s: a run with a context never polled it", assign.Ref(a))
	}
	k := rapid.IntRange(0, polls-1).Draw(t, "poll")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	restore = assign.SetPollHook(func(string) {
		if n == k {
			cancel()
		}
		n++
	})
	r, err := assign.Run(a, g, assign.WithContext(ctx), assign.WithBestEffort(best))
	restore()
	switch {
	case !best:
		if r != nil || !errors.Is(err, assign.ErrStopped) || !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: got %v, %v; want ErrStopped and context.Canceled", assign.Ref(a), r, err)
		}
	case err != nil:
		t.Fatalf("%s best effort: %v", assign.Ref(a), err)
	default:
		if err := assigntest.Check(g, r); err != nil {
			t.Fatalf("%s best effort broke invariants:\n%v", assign.Ref(a), err)
		}
		if !slices.Contains(r.Warnings, assign.CutShortWarning) && !reflect.DeepEqual(r, want) {
			t.Fatalf("%s: no warning, yet the plan differs from an unstopped run's", assign.Ref(a))
		}
	}
}
