package assign_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/wire"
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
		r := run(t, a, g, nil, balanced)
		next := assigntest.Edit(assigntest.NextGroup(g, r)).
			Member("m4", "busy", "quiet").Member("m5", "busy", "quiet").Member("m6", "busy", "quiet").Build()
		r1 := run(t, a, next, nil, balanced)
		moved[a.Version()] = r1.Stats.Moved
		r2 := run(t, a, assigntest.NextGroup(next, r1), nil, balanced)
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
		r1 := run(t, assign.CooperativeSticky(), g, nil, balanced)
		r2 := run(t, assign.CooperativeStickyPerTopic(), g, nil, balanced)
		if r2.Stats.Moved > r1.Stats.Moved {
			t.Fatalf("v2 moved %d, v1 %d", r2.Stats.Moved, r1.Stats.Moved)
		}
	})
}

// convergeRounds runs a until nothing is pending and returns the settled
// result and the partitions moved over all rounds.
func convergeRounds(t checkT, a assign.Assignor, g *assign.Group) (*assign.Group, *assign.Result, int) {
	t.Helper()
	moved := 0
	for round := 0; round < 4; round++ {
		r := run(t, a, g, nil, balanced)
		moved += r.Stats.Moved
		if !r.FollowupRequired {
			return g, r, moved
		}
		g = assigntest.NextGroup(g, r)
	}
	t.Fatalf("%s did not converge", assign.Ref(a))
	return nil, nil, 0
}

// Quality report for issue 5: scale-outs of groups on busy and quiet topics,
// settled through their cooperative rounds. Version 2 moves exactly as many
// partitions as version 1 and never spreads a topic worse; on these shapes
// it spreads strictly better. Run with -v for the table.
func TestPerTopicQualityReport(t *testing.T) {
	shapes := []struct {
		name            string
		parts           []int32
		before, joiners int
	}{
		{"busy+quiet 3→6", []int32{48, 12}, 3, 3},
		{"10 topics 5→8", []int32{64, 32, 32, 16, 16, 8, 8, 4, 4, 2}, 5, 3},
		{"20 topics 30→45", []int32{300, 200, 100, 90, 80, 70, 60, 50, 40, 30, 30, 20, 20, 10, 10, 9, 8, 7, 6, 5}, 30, 15},
		{"6 topics 12→13", []int32{120, 60, 24, 24, 12, 6}, 12, 1},
	}
	better := 0
	for _, sh := range shapes {
		b := assigntest.NewGroup()
		var names []string
		for i, p := range sh.parts {
			name := topicName(i)
			names = append(names, name)
			b.Topic(name, p)
		}
		for m := range sh.before {
			b.Member(memberName(m), names...)
		}
		spread, moves := map[int]int{}, map[int]int{}
		for _, a := range cooperativeAssignors {
			g0, r0, _ := convergeRounds(t, a, assigntest.Edit(b.Build()).Protocol(assign.Cooperative).Build())
			next := assigntest.Edit(assigntest.NextGroup(g0, r0))
			for m := sh.before; m < sh.before+sh.joiners; m++ {
				next.Member(memberName(m), names...)
			}
			g1, r1, moved := convergeRounds(t, a, next.Build())
			spread[a.Version()], moves[a.Version()] = topicSpread(g1, r1), moved
		}
		// franz-go's cooperative-sticky, settled the same way.
		g0 := franzConverge(t, assigntest.Edit(b.Build()).Protocol(assign.Cooperative).Build())
		next := assigntest.Edit(g0)
		for m := sh.before; m < sh.before+sh.joiners; m++ {
			next.Member(memberName(m), names...)
		}
		g1 := franzConverge(t, next.Build())
		franzSpread := topicSpread(g1, ownedAsResult(g1))
		t.Logf("%-18s topicspread v1=%d v2=%d franz-go=%d   moved v1=%d v2=%d", sh.name, spread[1], spread[2], franzSpread, moves[1], moves[2])
		if moves[2] != moves[1] {
			t.Errorf("%s: v2 moved %d, v1 %d", sh.name, moves[2], moves[1])
		}
		if spread[2] > spread[1] {
			t.Errorf("%s: v2 spreads topics worse (%d) than v1 (%d)", sh.name, spread[2], spread[1])
		}
		if spread[2] < spread[1] {
			better++
		}
	}
	if better == 0 {
		t.Error("version 2 improved per-topic spread on none of the shapes")
	}
}

// franzConverge runs franz-go's cooperative-sticky leader rounds on g until
// a round hands out exactly what the members own, and returns the group as
// its members then report it.
func franzConverge(t *testing.T, g *assign.Group) *assign.Group {
	t.Helper()
	for round := 0; round < 5; round++ {
		var members []kmsg.JoinGroupResponseMember
		for _, m := range g.Members {
			sub := wire.Subscription{Version: 3, Topics: m.Topics, Owned: m.Owned, Generation: m.Generation}
			members = append(members, kmsg.JoinGroupResponseMember{MemberID: m.ID, ProtocolMetadata: wire.AppendSubscription(nil, &sub)})
		}
		got := map[string][]assign.TopicPartitions{}
		for id, b := range franzLeader(t, kgo.CooperativeStickyBalancer(), members, g.Topics) {
			a, err := wire.DecodeAssignment(b)
			if err != nil {
				t.Fatal(err)
			}
			for _, tp := range a.Partitions {
				ps := slices.Clone(tp.Partitions)
				slices.Sort(ps)
				got[id] = append(got[id], assign.TopicPartitions{Topic: tp.Topic, Partitions: ps})
			}
		}
		next := assigntest.Edit(g).Generation(g.Generation + 1).Build()
		same := true
		for i := range next.Members {
			m := &next.Members[i]
			l := got[m.ID]
			slices.SortFunc(l, func(a, b assign.TopicPartitions) int { return strings.Compare(a.Topic, b.Topic) })
			if !equalTPs(l, m.Owned) {
				same = false
			}
			m.Owned, m.Generation = l, g.Generation
		}
		if same {
			return next
		}
		g = next
	}
	t.Fatal("franz-go did not settle")
	return nil
}

// ownedAsResult presents what members own as a Result, for topicSpread.
func ownedAsResult(g *assign.Group) *assign.Result {
	r := &assign.Result{}
	for _, m := range g.Members {
		r.Members = append(r.Members, assign.MemberAssignment{ID: m.ID, Assigned: m.Owned})
	}
	return r
}
