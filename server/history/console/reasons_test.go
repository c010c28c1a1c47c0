package console_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/history/console"
	"github.com/assignd/assignd/testbed/contains"
)

// TestConsoleMoveReasons: a decision's row says why its partitions moved,
// by reason, and lists its first moves.
func TestConsoleMoveReasons(t *testing.T) {
	h, _ := history.New()
	balance := assigndv1.MoveReason_MOVE_REASON_BALANCE
	d := &assigndv1.Decision{
		Time: timestamppb.New(time.Now()), GroupId: "orders", GenerationId: 4, ProtocolName: "cooperative-sticky",
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE, Assignor: "cooperative-sticky@1",
		MoveReasons: []*assigndv1.MoveReasonCount{
			{Reason: assigndv1.MoveReason_MOVE_REASON_NO_OWNER, Partitions: 1}, {Reason: balance, Partitions: 9},
		},
		Moves: []*assigndv1.PartitionMove{{Topic: "t", Partition: 0, ToMemberId: "b", Reason: assigndv1.MoveReason_MOVE_REASON_NO_OWNER}},
	}
	for p := range int32(9) {
		d.Moves = append(d.Moves, &assigndv1.PartitionMove{Topic: "t", Partition: p + 1, FromMemberId: "a", Reason: balance})
	}
	h.Record(d)
	srv := httptest.NewServer(http.StripPrefix("/console", console.Handler(h)))
	defer srv.Close()
	page := getOK(t, srv.URL, "/console/group?id=orders", "group page")
	contains.All(t, "group page", page,
		"by reason: no owner 1, balance 9.",
		"t[0] nobody→b (no owner), t[1] a→withheld (balance),",
		"t[7] a→withheld (balance), …",
	)
	if strings.Contains(page, "t[8]") {
		t.Errorf("group page lists more than the first moves:\n%s", page)
	}
}
