package grouplab

import (
	"slices"
	"strings"
	"testing"

	"github.com/assignd/assignd/testbed/contains"
)

// labOf builds a lab around a synthetic timeline, for the analysis alone.
func labOf(events []Event) *Lab {
	tl := newTimeline()
	for _, e := range events {
		tl.add(e)
	}
	return &Lab{tl: tl}
}

func tps(ss ...string) []TP {
	var out []TP
	for _, s := range ss {
		topic, p, _ := strings.Cut(s, "/")
		n := 0
		for _, c := range p {
			n = n*10 + int(c-'0')
		}
		out = append(out, TP{Topic: topic, Partition: int32(n)})
	}
	return out
}

func TestAnalyzeOwnership(t *testing.T) {
	for _, tc := range []struct {
		name     string
		events   []Event
		overlaps int
	}{
		{"handover after revoke", []Event{
			{Kind: EventAssigned, Member: "m1", Generation: 1, Partitions: tps("a/0", "a/1")},
			{Kind: EventRevoked, Member: "m1", Generation: 2, Partitions: tps("a/1")},
			{Kind: EventAssigned, Member: "m2", Generation: 3, Partitions: tps("a/1")},
		}, 0},
		{"assigned while still owned", []Event{
			{Kind: EventAssigned, Member: "m1", Generation: 1, Partitions: tps("a/0", "a/1")},
			{Kind: EventAssigned, Member: "m2", Generation: 2, Partitions: tps("a/1")},
		}, 1},
		{"a killed member owns nothing", []Event{
			{Kind: EventAssigned, Member: "m1", Generation: 1, Partitions: tps("a/0")},
			{Kind: EventKilled, Member: "m1", Generation: -1},
			{Kind: EventAssigned, Member: "m2", Generation: 2, Partitions: tps("a/0")},
		}, 0},
		{"lost partitions are released", []Event{
			{Kind: EventAssigned, Member: "m1", Generation: 1, Partitions: tps("a/0")},
			{Kind: EventLost, Member: "m1", Generation: 1, Partitions: tps("a/0")},
			{Kind: EventAssigned, Member: "m2", Generation: 2, Partitions: tps("a/0")},
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := labOf(tc.events).Analyze()
			if len(a.Overlaps) != tc.overlaps {
				t.Fatalf("overlaps %q, want %d", a.Overlaps, tc.overlaps)
			}
		})
	}
}

func TestAnalyzeDelivery(t *testing.T) {
	l := labOf(nil)
	tl := l.tl
	a0 := TP{Topic: "a", Partition: 0}
	for off := range int64(5) {
		tl.produce(a0, off)
	}
	// Ownership epoch 10 (m1) committed through offset 2 on revoke;
	// epoch 20 (m2) followed it.
	tl.commit(10, a0, 2)
	tl.consume(Offset{a0, 0}, Consumption{"m1", 10})
	tl.consume(Offset{a0, 1}, Consumption{"m1", 10})
	tl.consume(Offset{a0, 1}, Consumption{"m2", 20}) // m1 committed through 2: unexplained
	tl.consume(Offset{a0, 2}, Consumption{"m1", 10})
	tl.consume(Offset{a0, 2}, Consumption{"m2", 20}) // not covered by the commit: explained
	tl.consume(Offset{a0, 3}, Consumption{"m2", 20})
	tl.consume(Offset{a0, 3}, Consumption{"m2", 20}) // twice in one ownership: unexplained
	// offset 4 is never consumed: lost

	a := l.Analyze()
	if a.Duplicates != 3 {
		t.Errorf("duplicates %d, want 3", a.Duplicates)
	}
	if len(a.Unexplained) != 2 || !strings.Contains(a.Unexplained[0], "committed through 2") || !strings.Contains(a.Unexplained[1], "twice in one ownership") {
		t.Errorf("unexplained %q", a.Unexplained)
	}
	if !slices.Equal(a.Lost, []Offset{{a0, 4}}) {
		t.Errorf("lost %v, want a/0@4", a.Lost)
	}

	tl.consume(Offset{a0, 4}, Consumption{"m3", 0})
	if a := l.Analyze(); len(a.Lost) != 0 || len(a.Outside) != 1 {
		t.Errorf("after a consumption without ownership: lost %v, outside %q", a.Lost, a.Outside)
	}
}

func TestAnalyzeWindows(t *testing.T) {
	events := []Event{
		{Kind: EventStarted, Member: "m1", Detail: "shim"},
		{Kind: EventStarted, Member: "m2", Detail: "native"},
		{Kind: EventBalanced, Member: "m1", MemberID: "id1", Generation: 1, Detail: "service"},
		{Kind: EventAssigned, Member: "m1", MemberID: "id1", Generation: 1, Partitions: tps("a/0", "a/1", "a/2", "a/3")},
		{Kind: EventAssigned, Member: "m2", MemberID: "id2", Generation: 1},
		{Kind: EventSettled, Generation: 1},
		// m3 joins: m1 gives up a/3 (and a/2, which it gets back), m3
		// misses generation 3's SyncGroup.
		{Kind: EventStarted, Member: "m3", Detail: "shim"},
		{Kind: EventAssigned, Member: "m3", MemberID: "id3", Generation: 2},
		{Kind: EventAssigned, Member: "m2", Generation: 2},
		{Kind: EventAssigned, Member: "m1", Generation: 2},
		{Kind: EventRevoked, Member: "m1", Generation: 2, Partitions: tps("a/2", "a/3")},
		{Kind: EventAssigned, Member: "m1", Generation: 3},
		{Kind: EventAssigned, Member: "m2", Generation: 3},
		{Kind: EventAssigned, Member: "m2", Generation: 4},
		{Kind: EventBalanced, Member: "m1", MemberID: "id1", Generation: 4, Detail: "fallback (Unavailable)"},
		{Kind: EventAssigned, Member: "m1", Generation: 4, Partitions: tps("a/2")},
		{Kind: EventAssigned, Member: "m3", Generation: 4, Partitions: tps("a/3")},
		{Kind: EventSettled, Generation: 4},
		// Nothing changes, yet m2 takes a/1 after m1 revoked it.
		{Kind: EventRevoked, Member: "m1", Generation: 4, Partitions: tps("a/1")},
		{Kind: EventAssigned, Member: "m2", Generation: 5, Partitions: tps("a/1")},
		{Kind: EventSettled, Generation: 5},
		{Kind: EventLeaderSync, MemberID: "id1", Generation: 6, Assignments: map[string][]byte{"id1": {1}}},
		{Kind: EventLeaderSync, MemberID: "id3", Generation: 6, Assignments: map[string][]byte{"id1": {2}}},
		{Kind: EventLeaderSync, MemberID: "id2", Generation: 6, Assignments: map[string][]byte{"id1": {3}}},
	}
	a := labOf(events).Analyze()
	if len(a.Windows) != 3 {
		t.Fatalf("%d windows", len(a.Windows))
	}
	w := a.Windows[1]
	if len(w.Changes) != 1 || !slices.Equal(w.Generations, []int32{2, 3, 4}) || w.Followups() != 2 {
		t.Errorf("window 1: changes %d, generations %v", len(w.Changes), w.Generations)
	}
	if !slices.Equal(w.MissedSyncs, []string{"m3 missed generation 3"}) {
		t.Errorf("missed syncs %q", w.MissedSyncs)
	}
	if !slices.Equal(w.Moves, []Move{{TP{Topic: "a", Partition: 3}, "m1", "m3"}}) || len(w.StrayMoves()) != 0 {
		t.Errorf("moves %v, stray %v", w.Moves, w.StrayMoves())
	}
	if !slices.Equal(w.Reclaimed, []string{"m1 revoked a/2 and owns it again"}) {
		t.Errorf("reclaimed %q", w.Reclaimed)
	}
	if w.Served != 0 || w.Fallbacks != 1 || w.Imbalance() != 2 {
		t.Errorf("served %d fallbacks %d imbalance %d (owned %v)", w.Served, w.Fallbacks, w.Imbalance(), w.Owned)
	}
	if moves := a.Windows[2].StrayMoves(); len(moves) != 1 {
		t.Errorf("stray moves %v", moves)
	}
	if len(a.Leaders) != 1 || !slices.Equal(a.Leaders[0].Leaders, []string{"m1", "m3", "m2"}) {
		t.Errorf("leaders %+v", a.Leaders)
	}
	// m1 and m3 are shims and disagree; m2 is native and not compared.
	if !slices.Equal(a.Disagreements, []string{"generation 6: m1 and m3 sent different plans"}) {
		t.Errorf("disagreements %q", a.Disagreements)
	}

	problems := strings.Join(a.Problems(true), "\n")
	contains.All(t, "problems", problems,
		"m1 revoked a/2 and owns it again",
		"window 2: 1 rebalances without a membership change",
		"generation 6: m1 and m3 sent different plans",
	)
	// Three rebalances for one change and one missed SyncGroup are within
	// the bound.
	if strings.Contains(problems, "window 1: 3 rebalances") {
		t.Errorf("window 1 over-counted:\n%s", problems)
	}
}

func TestCompact(t *testing.T) {
	for _, tc := range []struct {
		in   []TP
		want string
	}{
		{nil, "nothing"},
		{tps("orders/3", "orders/0", "orders/1", "orders/2", "orders/7", "audit/1"), "audit 1 orders 0-3,7"},
		{tps("a/1", "a/3", "a/5"), "a 1,3,5"},
	} {
		if got := compact(tc.in); got != tc.want {
			t.Errorf("compact(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRender(t *testing.T) {
	events := []Event{
		{Kind: EventStarted, Member: "m1", Detail: "shim"},
		{Kind: EventBalanced, Member: "m1", Generation: 1, Detail: "service"},
		{Kind: EventAssigned, Member: "m1", Generation: 1, Partitions: tps("a/0", "a/1")},
		{Kind: EventSettled, Generation: 1},
		{Kind: EventStarted, Member: "m2", Detail: "native"},
		{Kind: EventRevoked, Member: "m1", Generation: 2, Partitions: tps("a/1")},
		{Kind: EventLeaderSync, MemberID: "id2", Generation: 3},
		{Kind: EventAssigned, Member: "m2", MemberID: "id2", Generation: 3, Partitions: tps("a/1")},
		{Kind: EventSettled, Generation: 3},
	}
	l := labOf(events)
	var sb strings.Builder
	Render(&sb, l.tl.Events(), l.Analyze())
	got := sb.String()
	contains.All(t, "output", got,
		"m1 starts (shim balancer)",
		"generation 1: m1 balances as leader via service",
		"m1 gets a 0-1",
		"m1 revokes a 1",
		"generation 3 [follow-up]: m2 balances as leader (franz-go's own balancer)",
		"-- settled in generation 3: 1 rebalance for 1 membership change, 1 partition moved",
		"moved m1 -> m2: a 1",
	)
}
