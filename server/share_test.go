package server_test

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/share"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

// shareRequest turns a share group into an AssignShare request.
func shareRequest(g *share.Group) *assigndv1.AssignShareRequest {
	req := &assigndv1.AssignShareRequest{GroupId: "share-app", GroupType: assigndv1.GroupType_GROUP_TYPE_SHARE}
	for _, t := range g.Topics {
		req.Topics = append(req.Topics, &assigndv1.ShareTopic{Name: t.Name, PartitionCount: t.Partitions, UnassignablePartitions: t.Unassignable})
	}
	for _, m := range g.Members {
		sm := &assigndv1.ShareMember{MemberId: m.ID, Topics: m.Topics}
		for _, tp := range m.Current {
			sm.CurrentPartitions = append(sm.CurrentPartitions, &assigndv1.SharePartitions{Topic: tp.Topic, Partitions: tp.Partitions})
		}
		req.Members = append(req.Members, sm)
	}
	return req
}

// shareResult reads a response back into the engine's terms, for
// share.Check.
func shareResult(resp *assigndv1.AssignShareResponse) *share.Result {
	res := &share.Result{Assignor: resp.GetAssignor(), Warnings: resp.GetWarnings(), Stats: share.Stats{
		Pairs: int(resp.GetPairs()), Kept: int(resp.GetKept()), Added: int(resp.GetAdded()), Removed: int(resp.GetRemoved())}}
	for _, a := range resp.GetAssignments() {
		sa := share.Assignment{Member: a.GetMemberId()}
		for _, tp := range a.GetPartitions() {
			sa.Partitions = append(sa.Partitions, assign.TopicPartitions{Topic: tp.GetTopic(), Partitions: tp.GetPartitions()})
		}
		res.Assignments = append(res.Assignments, sa)
	}
	return res
}

// shareGroup is four members over a topic of three partitions (one
// member new, so a partition is shared) and a topic of six that two of
// them subscribe to, one partition of it not yet assignable.
func shareGroup() *share.Group {
	cur := func(topic string, ps ...int32) []assign.TopicPartitions {
		return []assign.TopicPartitions{{Topic: topic, Partitions: ps}}
	}
	return &share.Group{
		Topics: []share.Topic{{Name: "orders", Partitions: 3}, {Name: "audit", Partitions: 6, Unassignable: []int32{5}}},
		Members: []share.Member{
			{ID: "a", Topics: []string{"orders", "audit"}, Current: append(cur("orders", 0), cur("audit", 0, 1, 2, 3)...)},
			{ID: "b", Topics: []string{"orders"}, Current: cur("orders", 1)},
			{ID: "c", Topics: []string{"orders", "audit"}, Current: cur("orders", 2)},
			{ID: "d", Topics: []string{"orders"}},
		},
	}
}

func TestAssignShareRoundTrip(t *testing.T) {
	ts := startServer(t, nil)
	g := shareGroup()
	resp, err := ts.client.AssignShare(callCtx(t), shareRequest(g))
	if err != nil {
		t.Fatal(err)
	}
	res := shareResult(resp)
	if err := share.Check(g, res); err != nil {
		t.Fatalf("plan breaks an invariant: %v\n%v", err, resp)
	}
	if got, want := resp.GetAssignor(), share.Ref(share.Sticky()); got != want {
		t.Errorf("assignor %q, want %q", got, want)
	}
	if resp.GetGroupType() != assigndv1.GroupType_GROUP_TYPE_SHARE || len(resp.GetAssignments()) != len(g.Members) {
		t.Errorf("group type %s, %d assignments", resp.GetGroupType(), len(resp.GetAssignments()))
	}
	// orders: 4 pairs, 3 kept, d shares one; audit: 5 pairs (the
	// unassignable 5 goes to nobody), a keeps 3 of its 4 and c takes 2.
	if want := (share.Stats{Pairs: 9, Kept: 6, Added: 3, Removed: 1}); res.Stats != want {
		t.Errorf("stats %+v, want %+v", res.Stats, want)
	}
	var found bool
	for _, l := range ts.logs.lines(t, "finished call") {
		if l["grpc.method"] == "AssignShare" {
			found = l["group_type"] == "share" && l["assignor"] == "sticky@1" && l["group"] == "share-app" && fmt.Sprint(l["removed"]) == "1"
		}
	}
	if !found {
		t.Errorf("no call log line with group_type, assignor, group and removed: %v", ts.logs.lines(t, "finished call"))
	}
}

// The same request gives the same bytes, call after call.
func TestAssignShareDeterministic(t *testing.T) {
	ts := startServer(t, nil)
	req := shareRequest(shareGroup())
	var first []byte
	for i := range 5 {
		resp, err := ts.client.AssignShare(callCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatalf("call %d answered differently", i)
		}
	}
}

func TestAssignShareRejectsBadInput(t *testing.T) {
	ts := startServer(t, nil)
	invalid := assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP
	for _, tc := range []struct {
		name   string
		edit   func(*assigndv1.AssignShareRequest)
		code   codes.Code
		field  string
		member string
		reason assigndv1.ErrorReason
	}{
		{"streams group", func(r *assigndv1.AssignShareRequest) { r.GroupType = assigndv1.GroupType_GROUP_TYPE_STREAMS },
			codes.InvalidArgument, "group_type", "", invalid},
		{"unknown assignor", func(r *assigndv1.AssignShareRequest) { r.Assignor = "simple@1" },
			codes.InvalidArgument, "assignor", "", assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME},
		{"bad version", func(r *assigndv1.AssignShareRequest) { r.Assignor = "sticky@0" },
			codes.InvalidArgument, "assignor", "", assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME},
		{"empty member id", func(r *assigndv1.AssignShareRequest) { r.Members[2].MemberId = "" },
			codes.InvalidArgument, "members[2].member_id", "", invalid},
		{"duplicate member id", func(r *assigndv1.AssignShareRequest) { r.Members[3].MemberId = "a" },
			codes.InvalidArgument, "members[3].member_id", "a", invalid},
		{"empty subscription", func(r *assigndv1.AssignShareRequest) { r.Members[1].Topics = []string{""} },
			codes.InvalidArgument, "members[1].topics[0]", "b", invalid},
		{"current without topic", func(r *assigndv1.AssignShareRequest) { r.Members[0].CurrentPartitions[1].Topic = "" },
			codes.InvalidArgument, "members[0].current_partitions[1].topic", "a", invalid},
		{"topic twice", func(r *assigndv1.AssignShareRequest) { r.Topics[1].Name = "orders" },
			codes.InvalidArgument, "topics[1].name", "", invalid},
		{"negative partition count", func(r *assigndv1.AssignShareRequest) { r.Topics[0].PartitionCount = -1 },
			codes.InvalidArgument, "topics[0].partition_count", "", invalid},
		{"unassignable out of range", func(r *assigndv1.AssignShareRequest) { r.Topics[1].UnassignablePartitions = []int32{6} },
			codes.InvalidArgument, "topics[1].unassignable_partitions[0]", "", invalid},
		{"too many partitions", func(r *assigndv1.AssignShareRequest) { r.Topics[0].PartitionCount = share.MaxPartitions },
			codes.ResourceExhausted, "", "", assigndv1.ErrorReason_ERROR_REASON_LIMIT_EXCEEDED},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := shareRequest(shareGroup())
			tc.edit(req)
			_, err := ts.client.AssignShare(callCtx(t), req)
			checkRefused(t, err, tc.code, tc.field, tc.member, tc.reason)
		})
	}
}

// AssignShare is admitted against the memory budget Assign calls share.
func TestAssignShareAdmittedAgainstMemoryBudget(t *testing.T) {
	ts := startServer(t, nil, server.WithMemoryBudget(server.MinMemoryBudget))
	if _, err := ts.client.AssignShare(callCtx(t), shareRequest(shareGroup())); err != nil {
		t.Fatalf("a small group is refused: %v", err)
	}
	large := shareRequest(shareGroup())
	large.Topics[1].PartitionCount = 500_000
	_, err := ts.client.AssignShare(callCtx(t), large)
	checkOverBudget(t, err)
}

// TestAssignShareMetrics scrapes /metrics after an answered and a refused
// AssignShare call: the duration by assignor and code, and the pairs
// removed.
func TestAssignShareMetrics(t *testing.T) {
	tel := newTelemetry(t)
	ts := startServer(t, nil, server.WithMeterProvider(tel.MeterProvider()))
	ops := serveOps(t, ts, tel)
	if _, err := ts.client.AssignShare(callCtx(t), shareRequest(shareGroup())); err != nil {
		t.Fatal(err)
	}
	_, _ = ts.client.AssignShare(callCtx(t), &assigndv1.AssignShareRequest{Assignor: "nope"})
	checkMetrics(t, ops.URL+"/metrics",
		`assignd_assign_share_duration_seconds_count\{assignor="sticky@1",code="OK",.*\} 1`,
		`assignd_assign_share_duration_seconds_count\{assignor="none",code="InvalidArgument",reason="ERROR_REASON_UNKNOWN_PROTOCOL_NAME".*\} 1`,
		`assignd_assign_share_removed[a-z_]*_total\{assignor="sticky@1".*\} 1`,
	)
}
