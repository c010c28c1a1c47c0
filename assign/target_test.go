package assign_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// WithTarget (KIP-848) hands out the whole plan: what a COOPERATIVE round
// withholds (pending) goes to its target at once, nothing else changes,
// and no follow-up is asked for. m1 owned everything, m2 and m3 join; m1
// must give up two thirds, which a classic round withholds.
func TestTargetHandsOutWhatARoundWithholds(t *testing.T) {
	g := assigntest.NewGroup().Topic("a", 6).Topic("b", 3).Protocol(assign.Cooperative).
		Member("m1", "a", "b").Owns("m1", "a", 0, 1, 2, 3, 4, 5).Owns("m1", "b", 0, 1, 2).Gen("m1", 1).
		Member("m2", "a", "b").Member("m3", "a").Generation(2).Build()
	for _, a := range []assign.Assignor{assign.CooperativeSticky(), assign.CooperativeStickyPerTopic()} {
		t.Run(assign.Ref(a), func(t *testing.T) {
			round, target := roundAndTarget(t, a, g)
			if len(round.Pending) == 0 || !round.FollowupRequired {
				t.Fatalf("the classic round withholds nothing (pending %v): the test does not exercise the mode", round.Pending)
			}
			if len(target.Pending) != 0 || target.FollowupRequired || target.Stats.Pending != 0 {
				t.Errorf("target: pending %v, followup %v, want none", target.Pending, target.FollowupRequired)
			}
			// Every partition of the round, pending ones included, is in the
			// target exactly once, and every member keeps what the round gave it.
			owner := map[string]string{}
			for _, m := range target.Members {
				for _, tp := range m.Assigned {
					for _, p := range tp.Partitions {
						k := fmt.Sprintf("%s-%d", tp.Topic, p)
						if o, dup := owner[k]; dup {
							t.Errorf("%s assigned to %s and %s", k, o, m.ID)
						}
						owner[k] = m.ID
					}
				}
			}
			if len(owner) != 9 {
				t.Errorf("target assigns %d partitions, want 9", len(owner))
			}
			for i, m := range round.Members {
				for _, tp := range m.Assigned {
					for _, p := range tp.Partitions {
						if k := fmt.Sprintf("%s-%d", tp.Topic, p); owner[k] != m.ID {
							t.Errorf("%s: the round gives it to %s, the target to %s", k, m.ID, owner[k])
						}
					}
				}
				if !slices.EqualFunc(m.Revoked, target.Members[i].Revoked, func(x, y assign.TopicPartitions) bool {
					return x.Topic == y.Topic && slices.Equal(x.Partitions, y.Partitions)
				}) {
					t.Errorf("%s revokes %v in the round, %v in the target", m.ID, m.Revoked, target.Members[i].Revoked)
				}
			}
			// m1 keeps a third: stickiness comes from the owned partitions.
			if got := layout(target)["m1"]; got == "" {
				t.Errorf("m1 keeps nothing of what it owned")
			}
		})
	}
}

// Under EAGER nothing is ever withheld, so the target is the round.
func TestTargetIsTheEagerRound(t *testing.T) {
	g := assigntest.NewGroup().Topic("a", 5).Protocol(assign.Eager).
		Member("m1", "a").Owns("m1", "a", 0, 1, 2, 3, 4).Member("m2", "a").Build()
	for _, a := range []assign.Assignor{assign.Range(), assign.RoundRobin(), assign.CooperativeSticky()} {
		round, target := roundAndTarget(t, a, g)
		if got, want := layout(target), layout(round); !maps.Equal(got, want) {
			t.Errorf("%s: target %v, round %v", assign.Ref(a), got, want)
		}
	}
}

// roundAndTarget runs a on g as a classic round and with WithTarget.
func roundAndTarget(t *testing.T, a assign.Assignor, g *assign.Group) (round, target *assign.Result) {
	t.Helper()
	round, err := assign.Run(a, g)
	if err != nil {
		t.Fatal(err)
	}
	target, err = assign.Run(a, g, assign.WithTarget(true))
	if err != nil {
		t.Fatal(err)
	}
	return round, target
}
