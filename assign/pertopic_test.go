package assign_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// topicSpread returns, over all topics, the largest difference between the
// most and the fewest partitions of the topic that a subscriber of it is
// assigned (counting pending partitions nowhere).
func topicSpread(g *assign.Group, r *assign.Result) int {
	subs := make(map[string][]string)
	for _, m := range g.Members {
		for _, t := range m.Topics {
			subs[t] = append(subs[t], m.ID)
		}
	}
	held := make(map[string]map[string]int)
	for _, m := range r.Members {
		for _, tp := range m.Assigned {
			if held[tp.Topic] == nil {
				held[tp.Topic] = make(map[string]int)
			}
			held[tp.Topic][m.ID] += len(tp.Partitions)
		}
	}
	worst := 0
	for t, ms := range subs {
		lo, hi := -1, 0
		for _, id := range ms {
			c := held[t][id]
			if lo < 0 || c < lo {
				lo = c
			}
			hi = max(hi, c)
		}
		worst = max(worst, hi-lo)
	}
	return worst
}

// The librdkafka #4044 shape: scale out 3 → 6 on a busy and a quiet topic.
// Version 1 leaves the quiet topic to the new members only; version 2
// spreads both topics evenly, with the same number of moves.
func TestPerTopicBalanceOnScaleOut(t *testing.T) {
	b := assigntest.NewGroup().Topic("busy", 48).Topic("quiet", 12)
	for _, id := range []string{"m1", "m2", "m3"} {
		b.Member(id, "busy", "quiet")
	}
	g := b.Build()
	spread := map[int]int{}
	moved := map[int]int{}
	for _, a := range cooperativeAssignors {
		r := run(t, a, g)
		next := assigntest.Edit(assigntest.NextGroup(g, r)).
			Member("m4", "busy", "quiet").Member("m5", "busy", "quiet").Member("m6", "busy", "quiet").Build()
		r1 := run(t, a, next)
		moved[a.Version()] = r1.Stats.Moved
		r2 := run(t, a, assigntest.NextGroup(next, r1))
		if r2.FollowupRequired {
			t.Fatalf("%s did not converge after one follow-up", assign.Ref(a))
		}
		spread[a.Version()] = topicSpread(next, r2)
	}
	if moved[2] != moved[1] {
		t.Errorf("version 2 moved %d partitions, version 1 %d: must be equal", moved[2], moved[1])
	}
	if spread[2] > 1 {
		t.Errorf("version 2 per-topic spread %d, want ≤ 1 (busy 8 each, quiet 2 each)", spread[2])
	}
	if spread[1] <= spread[2] {
		t.Errorf("version 2 (spread %d) should improve on version 1 (spread %d) here", spread[2], spread[1])
	}
}

// Version 2 never moves more partitions than version 1 on the same input,
// and is as valid and balanced.
func TestPerTopicPropertyNoMoreMovesThanV1(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.Owned(), assigntest.Conflicts(), assigntest.Members(1, 12),
			assigntest.Topics(1, 6), assigntest.Partitions(0, 30)).Draw(t, "group")
		if rapid.Bool().Draw(t, "equal") {
			g = assigntest.GroupGen(assigntest.Owned(), assigntest.EqualSubscriptions(), assigntest.Members(1, 12),
				assigntest.Topics(1, 6), assigntest.Partitions(0, 30)).Draw(t, "equal group")
		}
		r1 := checkRun(t, assign.CooperativeSticky(), g, assigntest.Balanced())
		r2 := checkRun(t, assign.CooperativeStickyPerTopic(), g, assigntest.Balanced())
		if r2.Stats.Moved > r1.Stats.Moved {
			t.Fatalf("v2 moved %d, v1 %d", r2.Stats.Moved, r1.Stats.Moved)
		}
	})
}
