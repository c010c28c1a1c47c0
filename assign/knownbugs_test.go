package assign_test

import (
	"bytes"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/leader"
	"github.com/assignd/assignd/assign/wire"
)

// KAFKA-13891 / KAFKA-14016: a member that missed a SyncGroup reports an
// older generation; as long as nobody else claims its partitions it keeps
// them, and nothing else is revoked.
func TestCooperativeStickyMissedSyncKeepsItsPartitions(t *testing.T) {
	g := assigntest.NewGroup().Generation(7).Topic("t", 6).
		Member("a", "t").Owns("a", "t", 0, 1).Gen("a", 6).
		Member("b", "t").Owns("b", "t", 2, 3).Gen("b", 6).
		Member("late", "t").Owns("late", "t", 4, 5).Gen("late", 4).Build()
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	if r.Stats.Revoked != 0 || r.FollowupRequired || !equalTPs(assigned(r, "late"), tps("t", []int32{4, 5})) {
		t.Fatalf("late member lost its partitions or others were revoked: %+v, late=%v", r.Stats, assigned(r, "late"))
	}
}

// KAFKA-14382: identical input gives identical SyncGroup bytes, so that a
// group whose members could not revoke yet is asked for the same thing
// again rather than for something new.
func TestCooperativeStickySameInputSameBytes(t *testing.T) {
	b := assigntest.NewGroup().Generation(5).Topic("a", 10).Topic("b", 7)
	for i, id := range []string{"m1", "m2", "m3", "m4"} {
		b.Member(id, "a", "b").Gen(id, 4).Owns(id, "a", int32(i), int32(i+4))
	}
	g := b.Build()
	var joined []leader.JoinedMember
	for _, m := range g.Members {
		sub := wire.Subscription{Version: 3, Topics: m.Topics, Owned: m.Owned, Generation: m.Generation}
		joined = append(joined, leader.JoinedMember{ID: m.ID, Metadata: wire.AppendSubscription(nil, &sub)})
	}
	var first [][]byte
	for i := 0; i < 5; i++ {
		d, err := leader.Decode(joined, g.Topics, g.Generation, assign.Cooperative)
		if err != nil {
			t.Fatal(err)
		}
		r := run(t, assign.CooperativeSticky(), d.Group, nil, balanced)
		enc := leader.Encode(r, d.Versions)
		if first == nil {
			first = enc
			continue
		}
		for j := range enc {
			if !bytes.Equal(enc[j], first[j]) {
				t.Fatalf("run %d: member %d got different bytes", i, j)
			}
		}
	}
}

// KAFKA-8500 / KAFKA-9801 / KIP-345: a static member that rejoins gets a
// new member id; range and roundrobin order static members by instance id,
// so its assignment does not change, and sticky keeps what it reports.
func TestStaticMemberRejoinKeepsItsAssignment(t *testing.T) {
	build := func(idOfB string) *assign.Group {
		return assigntest.NewGroup().Topic("t", 7).Topic("u", 3).
			Member("z-dynamic", "t", "u").
			Member(idOfB, "t", "u").Static(idOfB, "instance-b").
			Member("a-static", "t", "u").Static("a-static", "instance-a").Build()
	}
	for _, a := range []assign.Assignor{assign.Range(), assign.RoundRobin()} {
		before := run(t, a, build("b-old-member-id"), nil, balanced)
		after := run(t, a, build("0-new-member-id"), nil, balanced)
		if !equalTPs(assigned(before, "b-old-member-id"), assigned(after, "0-new-member-id")) {
			t.Errorf("%s: static member's assignment changed with its member id: %v vs %v", assign.Ref(a),
				assigned(before, "b-old-member-id"), assigned(after, "0-new-member-id"))
		}
	}
	g := build("b-old-member-id")
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	next := assigntest.NextGroup(g, r)
	for i := range next.Members {
		if next.Members[i].ID == "b-old-member-id" {
			next.Members[i].ID = "0-new-member-id"
		}
	}
	r2 := run(t, assign.CooperativeSticky(), next, nil, balanced)
	if !equalTPs(assigned(r, "b-old-member-id"), assigned(r2, "0-new-member-id")) || r2.FollowupRequired {
		t.Errorf("cooperative-sticky: rejoined static member lost partitions: %v vs %v", assigned(r, "b-old-member-id"), assigned(r2, "0-new-member-id"))
	}
}
