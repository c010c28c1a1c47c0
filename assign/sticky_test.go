package assign_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/wire"
)

func assigned(r *assign.Result, id string) []assign.TopicPartitions {
	for _, m := range r.Members {
		if m.ID == id {
			return m.Assigned
		}
	}
	return nil
}

func revoked(r *assign.Result, id string) []assign.TopicPartitions {
	for _, m := range r.Members {
		if m.ID == id {
			return m.Revoked
		}
	}
	return nil
}

func tps(pairs ...any) []assign.TopicPartitions {
	var out []assign.TopicPartitions
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, assign.TopicPartitions{Topic: pairs[i].(string), Partitions: pairs[i+1].([]int32)})
	}
	return out
}

func equalTPs(a, b []assign.TopicPartitions) bool {
	return slices.EqualFunc(a, b, func(x, y assign.TopicPartitions) bool {
		return x.Topic == y.Topic && slices.Equal(x.Partitions, y.Partitions)
	})
}

func TestCooperativeStickyFirstAssignmentIsRoundRobin(t *testing.T) {
	// The reference's example: two members, t1 and t2 with 3 partitions.
	g := assigntest.NewGroup().Topic("t1", 3).Topic("t2", 3).
		Member("c1", "t1", "t2").Member("c2", "t1", "t2").Build()
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	if got, want := assigned(r, "c1"), tps("t1", []int32{0, 2}, "t2", []int32{1}); !equalTPs(got, want) {
		t.Errorf("c1 = %v, want %v", got, want)
	}
	if got, want := assigned(r, "c2"), tps("t1", []int32{1}, "t2", []int32{0, 2}); !equalTPs(got, want) {
		t.Errorf("c2 = %v, want %v", got, want)
	}
	if r.Protocol != assign.Cooperative || r.FollowupRequired {
		t.Errorf("protocol %v followup %v, want COOPERATIVE without follow-up", r.Protocol, r.FollowupRequired)
	}
}

func TestCooperativeStickyUnchangedGroupKeepsEverything(t *testing.T) {
	g := assigntest.NewGroup().Topic("a", 7).Topic("b", 5).
		Member("m1", "a", "b").Member("m2", "a", "b").Member("m3", "a", "b").Build()
	r1 := run(t, assign.CooperativeSticky(), g, nil, balanced)
	g2 := assigntest.NextGroup(g, r1)
	r2 := run(t, assign.CooperativeSticky(), g2, nil, balanced)
	if m := assigntest.Moves(r1, r2); m != 0 || r2.Stats.Moved != 0 || r2.FollowupRequired || r2.Stats.Revoked != 0 {
		t.Fatalf("unchanged group: moves %d, stats %+v, followup %v", m, r2.Stats, r2.FollowupRequired)
	}
	for _, m := range r1.Members {
		if !equalTPs(m.Assigned, assigned(r2, m.ID)) {
			t.Errorf("%s: got %v, want what it owns %v", m.ID, assigned(r2, m.ID), m.Assigned)
		}
	}
}

func TestCooperativeStickyLeaveMovesOnlyTheLeaversPartitions(t *testing.T) {
	b := assigntest.NewGroup().Topic("a", 20).Topic("b", 13)
	for _, id := range []string{"m1", "m2", "m3", "m4", "m5"} {
		b.Member(id, "a", "b")
	}
	g := b.Build()
	r1 := run(t, assign.CooperativeSticky(), g, nil, balanced)
	g2 := assigntest.Edit(assigntest.NextGroup(g, r1)).Remove("m3").Build()
	r2 := run(t, assign.CooperativeSticky(), g2, []assign.Option{assign.WithRackAware(true)}, balanced)
	if m := assigntest.Moves(r1, r2); m != 0 {
		t.Errorf("%d partitions of staying members moved", m)
	}
	if r2.FollowupRequired || r2.Stats.Revoked != 0 {
		t.Errorf("leave needs no revocation: %+v", r2.Stats)
	}
}

func TestCooperativeStickyJoinMovesTheMinimumAndConvergesInOneFollowup(t *testing.T) {
	b := assigntest.NewGroup().Topic("a", 48).Topic("b", 12)
	for _, id := range []string{"m1", "m2", "m3"} {
		b.Member(id, "a", "b")
	}
	g := b.Build()
	r1 := run(t, assign.CooperativeSticky(), g, nil, balanced)
	g2 := assigntest.Edit(assigntest.NextGroup(g, r1)).Member("m4", "a", "b").Build()
	r2 := run(t, assign.CooperativeSticky(), g2, nil, balanced)
	// 60 partitions over 4 members: the newcomer needs 15, the minimum to move.
	if r2.Stats.Moved != 15 || r2.Stats.Pending != 15 || !r2.FollowupRequired {
		t.Fatalf("round 1: stats %+v followup %v, want 15 moved and withheld", r2.Stats, r2.FollowupRequired)
	}
	if len(assigned(r2, "m4")) != 0 {
		t.Errorf("round 1 gave the newcomer partitions still owned by others: %v", assigned(r2, "m4"))
	}
	g3 := assigntest.NextGroup(g2, r2)
	r3 := run(t, assign.CooperativeSticky(), g3, nil, balanced)
	if r3.FollowupRequired || r3.Stats.Moved != 0 || r3.Stats.Imbalance != 0 {
		t.Fatalf("round 2 did not converge: %+v", r3.Stats)
	}
	n := 0
	for _, tp := range assigned(r3, "m4") {
		n += len(tp.Partitions)
	}
	if n != 15 {
		t.Errorf("newcomer got %d partitions, want 15", n)
	}
}

// KAFKA-12984: a partition claimed by two members in the same generation is
// withheld from both; with different generations the higher one wins.
func TestCooperativeStickyConflictingClaims(t *testing.T) {
	base := assigntest.NewGroup().Generation(5).Topic("t", 4).
		Member("c1", "t").Member("c2", "t").Member("c3", "t")

	same := base.Owns("c1", "t", 0, 1).Owns("c2", "t", 1, 2).Gen("c1", 4).Gen("c2", 4).Build()
	r := run(t, assign.CooperativeSticky(), same, nil, balanced)
	if !slices.ContainsFunc(r.Pending, func(tp assign.TopicPartitions) bool { return tp.Topic == "t" && slices.Contains(tp.Partitions, 1) }) {
		t.Errorf("t-1 claimed twice in generation 4 is not withheld: pending %v", r.Pending)
	}
	if !r.FollowupRequired {
		t.Error("a withheld partition must require a follow-up")
	}

	higher := assigntest.NewGroup().Generation(5).Topic("t", 4).
		Member("c1", "t").Member("c2", "t").Member("c3", "t").
		Owns("c1", "t", 0, 1).Owns("c2", "t", 1, 2).Gen("c1", 3).Gen("c2", 4).Build()
	r = run(t, assign.CooperativeSticky(), higher, nil, balanced)
	for _, tp := range assigned(r, "c1") {
		if slices.Contains(tp.Partitions, 1) {
			t.Errorf("c1's stale claim on t-1 (generation 3) beat c2's (generation 4)")
		}
	}
	if !slices.ContainsFunc(revoked(r, "c1"), func(tp assign.TopicPartitions) bool { return slices.Contains(tp.Partitions, 1) }) {
		t.Errorf("c1 must see its stale t-1 as revoked: %v", revoked(r, "c1"))
	}
}

// KAFKA-13419: owned partitions reported without a generation lose to a
// member claiming them with a real one.
func TestCooperativeStickyNoGenerationLoses(t *testing.T) {
	g := assigntest.NewGroup().Generation(9).Topic("t", 2).
		Member("a", "t").Member("b", "t").
		Owns("a", "t", 0, 1).Gen("a", assign.NoGeneration).
		Owns("b", "t", 0).Gen("b", 8).Build()
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	got := assigned(r, "b")
	if len(got) != 1 || !slices.Contains(got[0].Partitions, 0) {
		t.Fatalf("b (generation 8) should keep t-0, got %v", got)
	}
}

// KAFKA-14639: members reporting several generations with overlapping
// claims: nothing is revoked and assigned in the same round. The checker's
// owned-by-other rule is exactly that property; this runs it over a dense
// tangle of claims.
func TestCooperativeStickyMixedGenerationsNeverDoubleAssign(t *testing.T) {
	b := assigntest.NewGroup().Generation(10).Topic("t", 12).Topic("u", 6)
	ids := []string{"a", "b", "c", "d", "e"}
	for i, id := range ids {
		b.Member(id, "t", "u").Gen(id, int32(5+i%3))
		for p := int32(i); p < 12; p += 2 {
			b.Owns(id, "t", p)
		}
		b.Owns(id, "u", int32(i), int32((i+1)%6))
	}
	g := b.Build()
	for round := 0; round < 4; round++ {
		r := run(t, assign.CooperativeSticky(), g, nil, balanced)
		if !r.FollowupRequired {
			return
		}
		g = assigntest.NextGroup(g, r)
	}
	t.Fatal("did not converge within 3 follow-ups")
}

// KAFKA-13406: stale owned partitions (deleted topics, partitions beyond the
// count, topics no longer subscribed) never make assignment fail.
func TestCooperativeStickyStaleOwnedIsIgnoredWithWarning(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 2).Topic("gone-from-subs", 2).
		Member("a", "t").Member("b", "t").
		Owns("a", "t", 0, 5).Owns("a", "deleted", 0).Owns("b", "gone-from-subs", 1).Build()
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	if len(r.Warnings) == 0 {
		t.Error("ignored owned partitions must be reported in warnings")
	}
	if !equalTPs(revoked(r, "b"), tps("gone-from-subs", []int32{1})) {
		t.Errorf("b must revoke the partition of the topic it dropped: %v", revoked(r, "b"))
	}
}

// KAFKA-15170: with racks, partitions an owner gives up because of rack
// placement are withheld in the cooperative round (never revoked and
// reassigned at once) and quotas stay right. assignd gives up off-rack
// partitions first when a member must give some up anyway, and, as the
// Java client does, trades partitions that are balanced but off their
// owners' racks (KIP-881) unless told to keep them.
func TestCooperativeStickyRacks(t *testing.T) {
	r1, r2 := []string{"r1"}, []string{"r2"}
	base := func() *assigntest.GroupBuilder {
		return assigntest.NewGroup().Generation(3).Topic("t", 6).Racks("t", r1, r1, r1, r2, r2, r2)
	}
	// a (r1) owns everything; b (r2) joins: a gives up the r2 partitions.
	g := base().Member("a", "t").Rack("a", "r1").Owns("a", "t", 0, 1, 2, 3, 4, 5).Gen("a", 2).
		Member("b", "t").Rack("b", "r2").Build()
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	if !equalTPs(r.Pending, tps("t", []int32{3, 4, 5})) || !r.FollowupRequired || len(assigned(r, "b")) != 0 {
		t.Fatalf("round 1: pending %v, b %v; want t-3..5 withheld", r.Pending, assigned(r, "b"))
	}
	r2run := run(t, assign.CooperativeSticky(), assigntest.NextGroup(g, r), nil, balanced)
	if !equalTPs(assigned(r2run, "b"), tps("t", []int32{3, 4, 5})) || r2run.FollowupRequired {
		t.Fatalf("round 2: b got %v, want its rack's t-3..5", assigned(r2run, "b"))
	}

	// Balanced but off-rack: round 1 withholds everything and each owner
	// revokes what it holds; round 2 brings every partition home.
	swapped := base().Member("a", "t").Rack("a", "r1").Owns("a", "t", 3, 4, 5).Gen("a", 2).
		Member("b", "t").Rack("b", "r2").Owns("b", "t", 0, 1, 2).Gen("b", 2).Build()
	r = run(t, assign.CooperativeSticky(), swapped, nil, balanced)
	if !equalTPs(r.Pending, tps("t", []int32{0, 1, 2, 3, 4, 5})) || !equalTPs(revoked(r, "a"), tps("t", []int32{3, 4, 5})) ||
		!equalTPs(revoked(r, "b"), tps("t", []int32{0, 1, 2})) || !r.FollowupRequired {
		t.Fatalf("off-rack round 1: pending %v, revoked a %v b %v", r.Pending, revoked(r, "a"), revoked(r, "b"))
	}
	r2run = run(t, assign.CooperativeSticky(), assigntest.NextGroup(swapped, r), nil, balanced)
	if !equalTPs(assigned(r2run, "a"), tps("t", []int32{0, 1, 2})) || !equalTPs(assigned(r2run, "b"), tps("t", []int32{3, 4, 5})) ||
		r2run.FollowupRequired {
		t.Fatalf("off-rack round 2: a %v b %v", assigned(r2run, "a"), assigned(r2run, "b"))
	}
	// With realignment off, nothing moves for locality alone.
	if r := run(t, assign.CooperativeSticky(), swapped, []assign.Option{assign.WithKeepMisalignedRacks(true)}, balanced); r.Stats.Moved != 0 || r.FollowupRequired {
		t.Errorf("off-rack group kept by option moved partitions: %+v", r.Stats)
	}

	// A first assignment is rack-local where the racks allow it.
	fresh := base().Member("a", "t").Rack("a", "r1").Member("b", "t").Rack("b", "r2").Build()
	r = run(t, assign.CooperativeSticky(), fresh, nil, balanced)
	if !equalTPs(assigned(r, "a"), tps("t", []int32{0, 1, 2})) || !equalTPs(assigned(r, "b"), tps("t", []int32{3, 4, 5})) {
		t.Errorf("first assignment not rack-local: a=%v b=%v", assigned(r, "a"), assigned(r, "b"))
	}
	off := run(t, assign.CooperativeSticky(), fresh, []assign.Option{assign.WithRackAware(false)}, balanced)
	if equalTPs(assigned(off, "a"), tps("t", []int32{0, 1, 2})) {
		t.Errorf("with rack awareness off the plan should ignore racks: a=%v", assigned(off, "a"))
	}
}

// KAFKA-14382: identical input gives identical output, in any member order.
func TestCooperativeStickyDeterministicInAnyMemberOrder(t *testing.T) {
	b := assigntest.NewGroup().Generation(4).Topic("a", 9).Topic("b", 4).Topic("c", 11)
	for i, id := range []string{"m5", "m1", "m4", "m2", "m3"} {
		b.Member(id, "a", "b", "c").Gen(id, 3).Owns(id, "a", int32(i), int32(i+4))
	}
	g := b.Build()
	want := run(t, assign.CooperativeSticky(), g, nil, balanced)
	for k := 0; k < 5; k++ {
		h := assigntest.Edit(g).Build()
		slices.Reverse(h.Members)
		h.Members = append(h.Members[k:], h.Members[:k]...)
		got := run(t, assign.CooperativeSticky(), h, nil, balanced)
		for i := range want.Members {
			if want.Members[i].ID != got.Members[i].ID || !equalTPs(want.Members[i].Assigned, got.Members[i].Assigned) {
				t.Fatalf("permutation %d: %s got %v, want %v", k, got.Members[i].ID, got.Members[i].Assigned, want.Members[i].Assigned)
			}
		}
	}
}

// librdkafka 2.0 sends subscription v1: no generation field, the generation
// in the cooperative user data (4 bytes). franz-go writes StickyAssignorUserData
// there; both are read.
func TestCooperativeStickyGenerationFromUserData(t *testing.T) {
	for name, ud := range map[string][]byte{
		"java/librdkafka 4 bytes": wire.AppendCooperativeUserData(nil, 7),
		"franz-go sticky data":    wire.AppendStickyUserData(nil, tps("t", []int32{0}), 7, true),
	} {
		t.Run(name, func(t *testing.T) {
			g := assigntest.NewGroup().Generation(8).Topic("t", 2).
				Member("old", "t").Owns("old", "t", 0).Gen("old", 6).
				Member("v1", "t").Owns("v1", "t", 0).UserData("v1", ud).Build()
			r := run(t, assign.CooperativeSticky(), g, nil, balanced)
			got := assigned(r, "v1")
			if len(got) != 1 || !slices.Contains(got[0].Partitions, 0) {
				t.Fatalf("v1 member (generation 7 in user data) should win t-0 over generation 6: %v", got)
			}
		})
	}
}

// The eager sticky assignor reads its history from StickyAssignorUserData.
func TestStickyReadsUserData(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 4).
		Member("a", "t").UserData("a", wire.AppendStickyUserData(nil, tps("t", []int32{2, 3}), 1, true)).
		Member("b", "t").UserData("b", wire.AppendStickyUserData(nil, tps("t", []int32{0, 1}), 1, false)).Build()
	r := run(t, assign.Sticky(), g, nil, balanced)
	if !equalTPs(assigned(r, "a"), tps("t", []int32{2, 3})) || !equalTPs(assigned(r, "b"), tps("t", []int32{0, 1})) {
		t.Errorf("sticky did not keep the user-data assignment: a=%v b=%v", assigned(r, "a"), assigned(r, "b"))
	}
	if r.Protocol != assign.Eager || r.FollowupRequired {
		t.Errorf("sticky is eager: %v", r.Protocol)
	}
}

func TestStickyRejectsCooperative(t *testing.T) {
	g := assigntest.NewGroup().Protocol(assign.Cooperative).Topic("t", 1).Member("a", "t").Build()
	for _, a := range []assign.Assignor{assign.Sticky(), assign.Range(), assign.RoundRobin()} {
		_, err := assign.Run(a, g)
		var ie *assign.InputError
		if !errors.Is(err, assign.ErrUnsupportedProtocol) || !errors.As(err, &ie) || ie.Field != "rebalance_protocol" {
			t.Errorf("%s under COOPERATIVE: got %v, want ErrUnsupportedProtocol naming rebalance_protocol", assign.Ref(a), err)
		}
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	cases := []struct {
		name   string
		g      *assign.Group
		member string
		field  string
	}{
		{"empty member id", &assign.Group{Members: []assign.Member{{ID: ""}}}, "", "members[0].member_id"},
		{"duplicate member id", &assign.Group{Members: []assign.Member{{ID: "a"}, {ID: "a"}}}, "a", "members.member_id"},
		{"negative partition count", &assign.Group{Topics: []assign.Topic{{Name: "t", Partitions: -1}}}, "", "topics[0].partition_count"},
		{"topic listed twice", &assign.Group{Topics: []assign.Topic{{Name: "t", Partitions: 1}, {Name: "t", Partitions: 2}}}, "", "topics[1].name"},
		{"empty topic name", &assign.Group{Topics: []assign.Topic{{Name: "", Partitions: 1}}}, "", "topics[0].name"},
		{"racks of wrong length", &assign.Group{Topics: []assign.Topic{{Name: "t", Partitions: 2, Racks: [][]string{{"r"}}}}}, "", "topics[0].partition_racks"},
		{"empty subscribed topic", &assign.Group{Members: []assign.Member{{ID: "a", Topics: []string{""}}}}, "a", "members[0].topics[0]"},
		{"unknown protocol", &assign.Group{Protocol: 9}, "", "rebalance_protocol"},
		{"topic name not UTF-8", &assign.Group{Topics: []assign.Topic{{Name: "\xff", Partitions: 1}}}, "", "topics[0].name"},
		{"topic name too long", &assign.Group{Topics: []assign.Topic{{Name: strings.Repeat("t", 40000), Partitions: 1}}}, "", "topics[0].name"},
		{"subscribed name not UTF-8", &assign.Group{Members: []assign.Member{{ID: "a", Topics: []string{"ok", "\xfe"}}}}, "a", "members[0].topics[1]"},
		{"subscribed name too long", &assign.Group{Members: []assign.Member{{ID: "a", Topics: []string{strings.Repeat("t", 1<<15)}}}}, "a", "members[0].topics[0]"},
		{"rack not UTF-8", &assign.Group{Members: []assign.Member{{ID: "a", Rack: "\xff"}}}, "a", "members[0].rack_id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := assign.Run(assign.CooperativeSticky(), tc.g)
			var ie *assign.InputError
			if !errors.Is(err, assign.ErrInvalidGroup) || !errors.As(err, &ie) {
				t.Fatalf("got %v, want an InputError wrapping ErrInvalidGroup", err)
			}
			if ie.Member != tc.member || ie.Field != tc.field {
				t.Errorf("got member %q field %q, want %q %q (%v)", ie.Member, ie.Field, tc.member, tc.field, err)
			}
			if !strings.Contains(err.Error(), tc.field) {
				t.Errorf("message %q does not name the field", err)
			}
		})
	}
}

func TestRunEmptyGroup(t *testing.T) {
	g := &assign.Group{Topics: []assign.Topic{{Name: "t", Partitions: 3}}}
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	if len(r.Members) != 0 || r.Stats.Partitions != 0 || r.FollowupRequired {
		t.Errorf("empty group: %+v", r)
	}
}

func TestFreezeMovesNothing(t *testing.T) {
	b := assigntest.NewGroup().Generation(2).Topic("t", 12).
		Member("a", "t").Member("b", "t").Member("c", "t").
		Owns("a", "t", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9).Owns("b", "t", 10).Gen("a", 1).Gen("b", 1)
	g := b.Build()
	r, err := assign.Run(assign.CooperativeSticky(), g, assign.WithFreeze(true))
	if err != nil {
		t.Fatal(err)
	}
	if err := assigntest.Check(g, r); err != nil {
		t.Fatal(err)
	}
	if r.Stats.Moved != 0 || r.FollowupRequired || len(assigned(r, "a")[0].Partitions) != 10 {
		t.Errorf("freeze moved partitions: %+v", r.Stats)
	}
	if n := len(assigned(r, "c")); n != 1 {
		t.Errorf("freeze must still place unowned t-11: c got %v", assigned(r, "c"))
	}
}

func TestMaxMovesConvergesOverSeveralRounds(t *testing.T) {
	b := assigntest.NewGroup().Generation(2).Topic("t", 30).Member("a", "t").Gen("a", 1)
	for p := int32(0); p < 30; p++ {
		b.Owns("a", "t", p)
	}
	for _, id := range []string{"b", "c", "d", "e", "f"} {
		b.Member(id, "t")
	}
	g := b.Build()
	for round := 1; round <= 12; round++ {
		r, err := assign.Run(assign.CooperativeSticky(), g, assign.WithMaxMoves(4))
		if err != nil {
			t.Fatal(err)
		}
		if err := assigntest.Check(g, r); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if r.Stats.Pending > 4 {
			t.Fatalf("round %d moved %d partitions, cap 4", round, r.Stats.Pending)
		}
		if !r.FollowupRequired {
			if r.Stats.Imbalance != 0 {
				t.Fatalf("converged unbalanced: %+v", r.Stats)
			}
			if round < 7 {
				t.Fatalf("25 moves with a cap of 4 cannot finish in %d rounds", round)
			}
			return
		}
		g = assigntest.NextGroup(g, r)
	}
	t.Fatal("did not converge in 12 rounds")
}

// Errors point into the caller's input order, not the engine's sorted one.
func TestRunErrorNamesInputIndex(t *testing.T) {
	g := &assign.Group{Members: []assign.Member{{ID: "z", Topics: []string{"t"}}, {ID: "a", Topics: []string{"t", ""}}}}
	_, err := assign.Run(assign.CooperativeSticky(), g)
	var ie *assign.InputError
	if !errors.As(err, &ie) || ie.Field != "members[1].topics[1]" || ie.Member != "a" {
		t.Fatalf("got %v, want member a at members[1].topics[1]", err)
	}
}

// A member listing a partition twice, of a topic nobody subscribes to any
// more, revokes it once and is counted once.
func TestRevokedCountsDuplicatesOnce(t *testing.T) {
	g := assigntest.NewGroup().Generation(2).Protocol(assign.Cooperative).Topic("a", 1).Topic("b", 1).
		Member("m1", "a").Gen("m1", 1).Build()
	g.Members[0].Owned = []assign.TopicPartitions{{Topic: "b", Partitions: []int32{0, 0}}}
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	if r.Stats.Revoked != 1 || !equalTPs(revoked(r, "m1"), tps("b", []int32{0})) {
		t.Fatalf("revoked %v, Stats.Revoked %d; want b-0 once", revoked(r, "m1"), r.Stats.Revoked)
	}
}

// User data that must be read and cannot be is ignored, with a warning.
func TestUnreadableUserDataIsWarned(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 2).Member("a", "t").UserData("a", []byte{1, 2, 3}).Member("b", "t").Build()
	for _, a := range []assign.Assignor{assign.Sticky(), assign.CooperativeSticky()} {
		r := run(t, a, g, nil, balanced)
		if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "user data") }) {
			t.Errorf("%s: no warning for undecodable user data: %v", assign.Ref(a), r.Warnings)
		}
	}
}

// Warnings stay small however many topics are missing.
func TestMissingTopicsWarningIsBounded(t *testing.T) {
	var topics []string
	for i := range 5000 {
		topics = append(topics, fmt.Sprintf("missing-%05d-%s", i, strings.Repeat("x", 80)))
	}
	g := &assign.Group{Members: []assign.Member{{ID: "a", Topics: topics}}}
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	if len(r.Warnings) != 1 || len(r.Warnings[0]) > 4000 || !strings.Contains(r.Warnings[0], "and 4980 more") {
		t.Fatalf("warning of %d bytes: %.200s", len(r.Warnings[0]), r.Warnings[0])
	}
}

// Every negative generation is an absent one, as in the Java client: a
// claim at -5 neither beats nor loses to a claim without a generation;
// the two tie, and the partition is withheld from both.
func TestCooperativeStickyNegativeGenerationIsNone(t *testing.T) {
	g := assigntest.NewGroup().Generation(9).Topic("t", 2).
		Member("a", "t").Member("b", "t").
		Owns("a", "t", 0).Gen("a", -5).
		Owns("b", "t", 0).Gen("b", assign.NoGeneration).Build()
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	if !slices.ContainsFunc(r.Pending, func(tp assign.TopicPartitions) bool { return tp.Topic == "t" && slices.Contains(tp.Partitions, 0) }) {
		t.Errorf("t-0 claimed by generation -5 and by no generation is not withheld: pending %v", r.Pending)
	}
	for _, id := range []string{"a", "b"} {
		for _, tp := range assigned(r, id) {
			if slices.Contains(tp.Partitions, 0) {
				t.Errorf("%s was given t-0 although the other member still claims it", id)
			}
		}
	}
}
