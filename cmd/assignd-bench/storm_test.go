package main

import (
	"os"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// TestStormChecksEveryAnswer: a short storm against assignd in this
// process answers every group validly, and the check rejects answers a
// leader must not apply.
func TestStormChecksEveryAnswer(t *testing.T) {
	p, groups := stormInProcess(t, 2, 40)
	r := storm(t.Context(), p, groups, 100*time.Millisecond, 10*time.Second)
	if r.ok != len(groups) || r.firstErr != nil {
		t.Fatalf("%d of %d answered validly: %+v", r.ok, len(groups), r)
	}

	// A group in which a member joined and the first member owns
	// something: every partition has an owner.
	var sg *stormGroup
	for i, g := range groups {
		if !stormShape(i).leave && len(g.g.Members[0].Owned) > 0 {
			sg = g
			break
		}
	}
	if sg == nil {
		t.Fatal("no group with a joiner whose first member owns partitions")
	}
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

// TestStormShapeIsTheIssues: the storm's groups are spread as issue 28
// describes a fleet's worst day: 3 to 60 members, up to 2,000 partitions,
// 0.5% big groups of 20,000 to 100,000, half with a member leaving.
func TestStormShapeIsTheIssues(t *testing.T) {
	const n = 5000
	var big, leaves int
	minMembers, maxMembers := 1<<30, 0
	for i := range n {
		s := stormShape(i)
		parts := s.topics * int(s.partitions)
		if s.leave {
			leaves++
		}
		minMembers, maxMembers = min(minMembers, s.members), max(maxMembers, s.members)
		if parts > 2000 {
			big++
			if parts < 20000 || parts > 100000 {
				t.Errorf("group %d: %d partitions, a big group has 20,000 to 100,000", i, parts)
			}
			continue
		}
		if parts < 1 {
			t.Errorf("group %d: no partitions", i)
		}
	}
	if big != n/200 {
		t.Errorf("%d big groups of %d, want 0.5%%", big, n)
	}
	if leaves != n/2 {
		t.Errorf("%d groups with a member leaving, want half", leaves)
	}
	if minMembers != 3 || maxMembers != 60 {
		t.Errorf("members %d to %d, want 3 to 60", minMembers, maxMembers)
	}
}

// TestProcCPUCountsWork: the CPU time read for this process grows while
// it works (however loaded the machine, within 10 s), and is zero for a
// process that does not exist.
func TestProcCPUCountsWork(t *testing.T) {
	before := procCPU(os.Getpid())
	for give := time.Now().Add(10 * time.Second); procCPU(os.Getpid())-before < 30*time.Millisecond; {
		if time.Now().After(give) {
			t.Fatalf("10 s of busy loop counted as %s of CPU", procCPU(os.Getpid())-before)
		}
		for x := range 1 << 20 {
			_ = x * x
		}
	}
	if got := procCPU(1 << 30); got != 0 {
		t.Errorf("a process that does not exist used %s", got)
	}
}

// BenchmarkStormCall is one call of the storm's mix, served in this
// process with the default flags and the history on, the groups in
// turn (distinct groups, as in a storm): its allocations are the
// server's and the raw codec's, whose requests are encoded beforehand.
// Run: go test ./cmd/assignd-bench -run '^$' -bench StormCall -benchmem
func BenchmarkStormCall(b *testing.B) {
	p, groups := stormInProcess(b, 1, 2000)
	reqs, err := encodeRequests(groups)
	if err != nil {
		b.Fatal(err)
	}
	var resp rawMessage
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		if err := p.conn().Invoke(b.Context(), assigndv1.AssignmentService_Assign_FullMethodName, &reqs[i%len(reqs)], &resp, rawCall); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// stormInProcess serves assignd in this process, until the test ends,
// and returns conns connections to it and n groups of a storm.
func stormInProcess(tb testing.TB, conns, n int) (*pool, []*stormGroup) {
	srv, err := startServer(tb.Context(), true)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = srv.stop() })
	p, err := dialPool(srv.addr, conns)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = p.close() })
	groups, err := stormGroups(tb.Name(), n, stormShape)
	if err != nil {
		tb.Fatal(err)
	}
	return p, groups
}
