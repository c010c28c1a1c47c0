package server_test

import (
	"regexp"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
)

// TestMoveReasons: the response counts partitions by reason under every
// view and lists them on request (capped by the request); the call log
// and /metrics count them by reason; the Decision keeps counts and the
// first moves.
func TestMoveReasons(t *testing.T) {
	tel := newTelemetry(t)
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, nil, server.WithMeterProvider(tel.MeterProvider()), server.WithHistory(h))
	ops := serveOps(t, ts, tel)
	ctx := callCtx(t)

	// a owns all 6 partitions, b joins: 3 leave a for balance (withheld).
	balance := assigndv1.MoveReason_MOVE_REASON_BALANCE
	for _, tc := range []struct {
		view  assigndv1.AssignmentView
		limit int32
		moves int
	}{
		{assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED, 0, 0},
		{assigndv1.AssignmentView_ASSIGNMENT_VIEW_FULL, 2, 2},
		{assigndv1.AssignmentView_ASSIGNMENT_VIEW_UNSPECIFIED, 10, 3},
	} {
		req := historyRequest("orders", 4, "cooperative-sticky", 0, 1, 2, 3, 4, 5)
		req.View, req.MoveDetailLimit = tc.view, tc.limit
		resp, err := ts.client.Assign(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		if rs := resp.GetMoveReasons(); len(rs) != 1 || rs[0].GetReason() != balance || rs[0].GetPartitions() != 3 {
			t.Errorf("view %s: move reasons %v; want 3 for balance", tc.view, rs)
		}
		want := []*assigndv1.PartitionMove{
			{Topic: "orders", Partition: 3, FromMemberId: "a", Reason: balance},
			{Topic: "orders", Partition: 4, FromMemberId: "a", Reason: balance},
			{Topic: "orders", Partition: 5, FromMemberId: "a", Reason: balance},
		}[:tc.moves]
		if got := resp.GetMoves(); len(got) != len(want) {
			t.Errorf("limit %d: moves %v; want %v", tc.limit, got, want)
		} else {
			for i := range want {
				if !proto.Equal(got[i], want[i]) {
					t.Errorf("limit %d: move %d is %v; want %v", tc.limit, i, got[i], want[i])
				}
			}
		}
	}
	req := historyRequest("orders", 5, "cooperative-sticky")
	req.MoveDetailLimit = -1
	if _, err := ts.client.Assign(ctx, req); status.Code(err) != codes.InvalidArgument {
		t.Errorf("a negative move_detail_limit: %v; want InvalidArgument", err)
	}

	lines := ts.logs.lines(t, "finished call")
	if by, _ := lines[0]["moved_by"].(map[string]any); by["balance"] != 3.0 || len(by) != 1 {
		t.Errorf("call log moved_by = %v; want balance=3", lines[0]["moved_by"])
	}

	d := waitGroup(t, assigndv1.NewGroupHistoryServiceClient(ts.conn), "orders", 3).GetDecisions()[0]
	if rs := d.GetMoveReasons(); len(rs) != 1 || rs[0].GetReason() != balance || rs[0].GetPartitions() != 3 {
		t.Errorf("decision move reasons %v; want 3 for balance", rs)
	}
	if ms := d.GetMoves(); len(ms) != 3 || ms[0].GetFromMemberId() != "a" || ms[0].GetToMemberId() != "" || ms[0].GetReason() != balance {
		t.Errorf("decision moves %v; want the 3 withheld from a", ms)
	}

	_, body := get(t, ops.URL+"/metrics")
	if !regexp.MustCompile(`assignd_assign_moved_partitions_total\{assignor="cooperative-sticky@1",.*reason="balance".*\} 9\n`).Match(body) {
		t.Errorf("/metrics has no moved_partitions_total of 9 for balance:\n%s", body)
	}
	if regexp.MustCompile(`assignd_assign_moved_partitions_total\{.*reason="(none|no_owner)"`).Match(body) {
		t.Errorf("/metrics counts reasons nothing moved for:\n%s", body)
	}
}
