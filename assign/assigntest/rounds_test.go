package assigntest_test

import (
	"reflect"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

func TestOwnersAndMoves(t *testing.T) {
	prev := &assign.Result{Members: []assign.MemberAssignment{
		{ID: "a", Assigned: tps(tp("t0", 0, 1), tp("t1", 0))},
		{ID: "b", Assigned: tps(tp("t0", 2))},
		{ID: "gone", Assigned: tps(tp("t0", 3))},
	}}
	next := &assign.Result{
		Members: []assign.MemberAssignment{
			{ID: "a", Assigned: tps(tp("t0", 0))},              // keeps t0-0, t1-0 deleted
			{ID: "b", Assigned: tps(tp("t0", 2, 3))},           // keeps t0-2, inherits t0-3 from a leaver
			{ID: "c", Assigned: tps(tp("t0", 4), tp("t2", 0))}, // new partitions
		},
		Pending: tps(tp("t0", 1)), // a's t0-1 is on its way elsewhere
	}
	owners := assigntest.Owners(prev)
	if len(owners) != 5 || owners[assigntest.TP{Topic: "t0", Partition: 2}] != "b" {
		t.Fatalf("Owners = %v", owners)
	}
	if got := assigntest.Moves(prev, next); got != 1 {
		t.Fatalf("Moves = %d, want 1 (t0-1 pending away from a)", got)
	}
	next.Members[2].Assigned = tps(tp("t0", 1, 4), tp("t2", 0))
	next.Pending = nil
	if got := assigntest.Moves(prev, next); got != 1 {
		t.Fatalf("Moves = %d, want 1 (t0-1 from a to c)", got)
	}
	if got := assigntest.Moves(prev, prev); got != 0 {
		t.Fatalf("Moves(prev, prev) = %d", got)
	}
}

func TestNextGroup(t *testing.T) {
	g := assigntest.NewGroup().Generation(4).Protocol(assign.Cooperative).Topic("t0", 3).
		Member("a", "t0").Owns("a", "t0", 2).Member("b", "t0").Build()
	r := &assign.Result{Members: []assign.MemberAssignment{
		{ID: "a", Assigned: tps(tp("t0", 0, 1))},
		{ID: "b", Assigned: tps(tp("t0", 2))},
	}}
	next := assigntest.NextGroup(g, r)
	if next.Generation != 5 || next.Protocol != assign.Cooperative {
		t.Fatalf("header %d %v", next.Generation, next.Protocol)
	}
	for i, want := range [][]assign.TopicPartitions{tps(tp("t0", 0, 1)), tps(tp("t0", 2))} {
		m := next.Members[i]
		if !reflect.DeepEqual(m.Owned, want) || m.Generation != 4 {
			t.Errorf("%s owns %v in generation %d", m.ID, m.Owned, m.Generation)
		}
	}
	// Deep copies: editing next touches neither g nor r.
	next.Members[0].Owned[0].Partitions[0] = 9
	next.Members[0].Topics[0] = "zz"
	if r.Members[0].Assigned[0].Partitions[0] != 0 || g.Members[0].Topics[0] != "t0" {
		t.Fatal("NextGroup aliases its inputs")
	}
	if !reflect.DeepEqual(g.Members[0].Owned, tps(tp("t0", 2))) {
		t.Fatalf("g changed: %v", g.Members[0].Owned)
	}
}
