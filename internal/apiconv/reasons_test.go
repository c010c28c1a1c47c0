package apiconv_test

import (
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// TestMoveReasonToAPI: every engine reason maps to the API value of the
// same name, and the API has no reason the engine lacks.
func TestMoveReasonToAPI(t *testing.T) {
	for r := range assign.MoveReason(assign.NumReasons) {
		want := "MOVE_REASON_" + strings.ToUpper(r.String())
		if r == assign.ReasonNone {
			want = "MOVE_REASON_UNSPECIFIED"
		}
		if got := apiconv.MoveReasonToAPI(r).String(); got != want {
			t.Errorf("%v maps to %s, want %s", r, got, want)
		}
	}
	if n := len(assigndv1.MoveReason_name); n != assign.NumReasons {
		t.Errorf("the API has %d reasons, the engine %d", n, assign.NumReasons)
	}
}

func TestMoveReasonsToAPI(t *testing.T) {
	var c assign.ReasonCounts
	if got := apiconv.MoveReasonsToAPI(&c); got != nil {
		t.Errorf("no moves: %v, want nil", got)
	}
	c[assign.ReasonBalance], c[assign.ReasonNoOwner] = 3, 5
	got := apiconv.MoveReasonsToAPI(&c)
	if len(got) != 2 || got[0].GetReason() != assigndv1.MoveReason_MOVE_REASON_NO_OWNER || got[0].GetPartitions() != 5 ||
		got[1].GetReason() != assigndv1.MoveReason_MOVE_REASON_BALANCE || got[1].GetPartitions() != 3 {
		t.Errorf("got %v", got)
	}
	ms := apiconv.MovesToAPI([]assign.Move{{Topic: "t", Partition: 2, From: "a", Reason: assign.ReasonBalance}})
	if len(ms) != 1 || ms[0].GetTopic() != "t" || ms[0].GetPartition() != 2 || ms[0].GetFromMemberId() != "a" ||
		ms[0].GetToMemberId() != "" || ms[0].GetReason() != assigndv1.MoveReason_MOVE_REASON_BALANCE {
		t.Errorf("got %v", ms)
	}
}
