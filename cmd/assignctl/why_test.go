package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/assignd/assignd/testbed/contains"
)

// TestAssignWhy: --why lists each partition that moves with its reason,
// as a table and in -o json; --why-limit caps the list and says so.
func TestAssignWhy(t *testing.T) {
	addr := startServer(t)
	out := ctlOK(t, "assign", "--addr", addr, "-f", "../../examples/cooperative-explicit.json", "--why")
	contains.All(t, "--why output", out,
		"why: balance 3\n",
		"TOPIC     PARTITION  FROM        TO          REASON\n",
		"orders    2          consumer-1  (withheld)  owner over its quota (balance)\n",
		"payments  1          consumer-1  (withheld)  owner over its quota (balance)\n",
	)
	if strings.Contains(out, "listed; raise") {
		t.Errorf("--why says the list is cut, but all 3 fit:\n%s", out)
	}

	code, out, errOut := ctl(t, "", "assign", "--addr", addr, "-f", "../../examples/cooperative-explicit.json", "--why", "--why-limit", "1")
	if code != exitOK || !strings.Contains(out, "(1 of 3 listed; raise --why-limit for more)") {
		t.Errorf("--why-limit 1: exit %d\n%s%s", code, out, errOut)
	}

	code, out, errOut = ctl(t, "", "assign", "--addr", addr, "-f", "../../examples/cooperative-explicit.json", "--why", "-o", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var resp struct {
		MoveReasons []struct {
			Reason     string `json:"reason"`
			Partitions int    `json:"partitions"`
		} `json:"moveReasons"`
		Moves []struct {
			Topic        string `json:"topic"`
			FromMemberID string `json:"fromMemberId"`
			ToMemberID   string `json:"toMemberId"`
			Reason       string `json:"reason"`
		} `json:"moves"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(resp.MoveReasons) != 1 || resp.MoveReasons[0].Reason != "MOVE_REASON_BALANCE" || resp.MoveReasons[0].Partitions != 3 ||
		len(resp.Moves) != 3 || resp.Moves[0].Reason != "MOVE_REASON_BALANCE" || resp.Moves[0].FromMemberID == "" || resp.Moves[0].ToMemberID != "" {
		t.Errorf("-o json --why:\n%s", out)
	}

	// Without --why nothing is listed; the counts come all the same.
	code, out, _ = ctl(t, "", "assign", "--addr", addr, "-f", "../../examples/cooperative-explicit.json", "-o", "json")
	if code != exitOK || strings.Contains(out, `"moves"`) || !strings.Contains(out, `"moveReasons"`) {
		t.Errorf("-o json without --why: exit %d\n%s", code, out)
	}
}
