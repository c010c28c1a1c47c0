package kgoassign_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/shimtest"
)

func cooperativeGroup() *assign.Group {
	return assigntest.NewGroup().Generation(4).Protocol(assign.Cooperative).
		Topic("orders", 6).Topic("audit", 2).Racks("audit", []string{"az1", "az2"}, []string{"az2"}).
		Member("m1", "orders", "audit").Rack("m1", "az2").Owns("m1", "orders", 0, 1, 2, 3).Gen("m1", 3).
		Member("m2", "orders", "audit").Owns("m2", "orders", 4, 5).Owns("m2", "audit", 0, 1).Gen("m2", 3).
		Member("m3", "orders").
		Build()
}

func TestLeaderSendsRawMetadataAndReturnsAssigndBytes(t *testing.T) {
	real, p, proxied := shimtest.ServeRecorded(t)
	var reports []kgoassign.Report
	b := kgoassign.CooperativeSticky(proxied,
		kgoassign.WithLogger(shimtest.Quiet), kgoassign.WithObserver(func(r kgoassign.Report) { reports = append(reports, r) }))
	g := cooperativeGroup()

	out, err := lead(t, b, g)
	if err != nil {
		t.Fatal(err)
	}
	// The request: raw metadata as the members sent it, the group's
	// identity, topics sorted, replica racks because m1 has a rack.
	req := shimtest.OnlyRequest(t, b.Stats(), p)
	if req.GetGroupId() != "g" || req.GetGenerationId() != 4 || req.GetLeaderId() != "m1" ||
		req.GetProtocolName() != "cooperative-sticky" || req.GetRebalanceProtocol() != assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE {
		t.Fatalf("request header %v", req)
	}
	joined := joinResponse("cooperative-sticky", g)
	for i, m := range req.GetMembers() {
		if m.GetMemberId() != joined[i].MemberID || !bytes.Equal(m.GetMetadata(), joined[i].ProtocolMetadata) || len(m.GetTopics()) > 0 {
			t.Fatalf("member %d: %v, want the raw metadata of %s", i, m, joined[i].MemberID)
		}
	}
	wantTopics := []*assigndv1.Topic{
		{Name: "audit", PartitionCount: 2, PartitionRacks: []*assigndv1.PartitionRacks{
			{Partition: 0, Racks: []string{"az1", "az2"}}, {Partition: 1, Racks: []string{"az2"}}}},
		{Name: "orders", PartitionCount: 6},
	}
	for i, tp := range req.GetTopics() {
		if !proto.Equal(tp, wantTopics[i]) {
			t.Fatalf("topic %d: %v, want %v", i, tp, wantTopics[i])
		}
	}

	// The answer: assignd's bytes, untouched.
	resp, err := real.Assign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(resp.GetAssignments()) {
		t.Fatalf("%d assignments, assignd gave %d", len(out), len(resp.GetAssignments()))
	}
	for i, a := range resp.GetAssignments() {
		if out[i].MemberID != a.GetMemberId() || !bytes.Equal(out[i].MemberAssignment, a.GetAssignment()) {
			t.Fatalf("member %s: bytes differ from assignd's", a.GetMemberId())
		}
	}
	seen := map[string]string{}
	for id, tps := range decodeAll(t, out) {
		for _, tp := range tps {
			for _, p := range tp.Partitions {
				k := fmt.Sprintf("%s/%d", tp.Topic, p)
				if other, dup := seen[k]; dup {
					t.Fatalf("%s assigned to %s and %s", k, other, id)
				}
				seen[k] = id
			}
		}
	}
	if len(reports) != 1 || reports[0].Source != client.SourceService || reports[0].Members != 3 || reports[0].Partitions != 8 {
		t.Fatalf("reports %+v", reports)
	}
}

func TestFallback(t *testing.T) {
	real := shimtest.NewClient(t, shimtest.ServeAssignd(t))
	shimtest.CheckFallbacks(t, leader{}, real,
		shimtest.Misfit(real, "member missing", func(r *assigndv1.AssignResponse) { r.Assignments = r.Assignments[1:] }),
		shimtest.Misfit(real, "unknown member", func(r *assigndv1.AssignResponse) { r.Assignments[0].MemberId = "stranger" }),
		shimtest.Misfit(real, "member twice", func(r *assigndv1.AssignResponse) { r.Assignments[1] = r.Assignments[0] }),
		shimtest.Misfit(real, "empty assignment bytes", func(r *assigndv1.AssignResponse) { r.Assignments[2].Assignment = nil }),
		shimtest.Misfit(real, "eager plan for a cooperative group", func(r *assigndv1.AssignResponse) {
			r.RebalanceProtocol = assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
		}),
	)
}

func TestBalanceFailsWhenNeitherWayCan(t *testing.T) { shimtest.CheckFailure(t, leader{}) }

// TestEveryLeaderGetsTheSameAnswer covers a broker that tells several
// members they lead the same generation (kfake does, after the leader
// leaves): whichever SyncGroup wins, the group gets the same plan, whether
// a leader reached assignd or fell back.
func TestEveryLeaderGetsTheSameAnswer(t *testing.T) {
	addr := shimtest.ServeAssignd(t)
	g := cooperativeGroup()
	var first []kmsg.SyncGroupRequestGroupAssignment
	for i, c := range []*client.Client{shimtest.NewClient(t, addr), shimtest.NewClient(t, addr), nil, shimtest.NewClient(t, shimtest.ClosedAddr(t))} {
		out, err := lead(t, kgoassign.CooperativeSticky(c, kgoassign.WithLogger(shimtest.Quiet)), g)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = out
			continue
		}
		sameAssignments(t, out, first)
	}
}

func sameAssignments(t shimtest.Fataler, got, want []kmsg.SyncGroupRequestGroupAssignment) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d assignments, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].MemberID != want[i].MemberID || !bytes.Equal(got[i].MemberAssignment, want[i].MemberAssignment) {
			t.Fatalf("member %s: %x, want %s: %x", got[i].MemberID, got[i].MemberAssignment, want[i].MemberID, want[i].MemberAssignment)
		}
	}
}
