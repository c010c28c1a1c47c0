package main

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
)

// TestStormChecksEveryAnswer: a short storm against assignd in this
// process answers every group validly, and the check rejects answers a
// leader must not apply.
func TestStormChecksEveryAnswer(t *testing.T) {
	srv, err := startServer(t.Context(), true)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	p, err := dialPool(srv.addr, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	groups, err := stormGroups("t", 40, stormShape)
	if err != nil {
		t.Fatal(err)
	}
	r := storm(t.Context(), p, groups, 100*time.Millisecond, 10*time.Second)
	if r.ok != len(groups) || r.firstErr != nil {
		t.Fatalf("%d of %d answered validly: %+v", r.ok, len(groups), r)
	}

	sg := groups[3]
	resp, err := p.client().Assign(t.Context(), sg.req)
	if err != nil {
		t.Fatal(err)
	}
	if err := sg.check(resp); err != nil {
		t.Fatalf("a valid answer: %v", err)
	}
	// The new member, which owns nothing, given a partition another
	// member owns: what KIP-429 forbids in the same rebalance.
	bad := proto.CloneOf(resp)
	owner := sg.g.Members[0]
	for _, a := range bad.Assignments {
		if a.MemberId == sg.g.Members[len(sg.g.Members)-1].ID {
			a.Assignment = wire.AppendAssignment(nil, 3, owner.Owned[:1], nil)
		}
	}
	if err := sg.check(bad); err == nil {
		t.Error("the check accepts a partition given away while its owner still has it")
	}
	// A member left without an answer.
	short := proto.CloneOf(resp)
	short.Assignments = short.Assignments[1:]
	if err := sg.check(short); err == nil {
		t.Error("the check accepts an answer missing a member")
	}
	// Nothing assigned to anyone: fine for partitions still owned (they
	// are withheld), not for those nobody owns.
	empty := proto.CloneOf(resp)
	for _, a := range empty.Assignments {
		a.Assignment = wire.AppendAssignment(nil, 3, nil, nil)
	}
	empty.Pending = nil
	if err := sg.check(empty); err != nil {
		t.Errorf("withholding every owned partition: %v", err)
	}
	unowned := &stormGroup{req: sg.req, g: sg.g}
	g := *sg.g
	g.Members = append([]assign.Member(nil), g.Members...)
	g.Members[0].Owned = nil
	unowned.g = &g
	if err := unowned.check(empty); err == nil {
		t.Error("the check accepts an answer that leaves partitions nobody owns unassigned")
	}
}
