package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/contains"
)

// startHistoryServer serves assignd with a group history.
func startHistoryServer(t *testing.T) string {
	t.Helper()
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, selection.Default(), server.WithHistory(h))
}

func TestGroupsAndDescribe(t *testing.T) {
	addr := startHistoryServer(t)
	if code, _, errOut := ctl(t, "", "--addr", addr, "assign", "-f", "../../examples/cooperative-explicit.json"); code != exitOK {
		t.Fatalf("assign: exit %d: %s", code, errOut)
	}
	// The decision is recorded once the response is written.
	var out string
	for range 200 {
		var code int
		code, out, _ = ctl(t, "", "--addr", addr, "groups")
		if code == exitOK && strings.Contains(out, "checkout") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	contains.All(t, "groups table", out, "GROUP", "SIGNALS", "checkout", "cooperative-sticky/COOPERATIVE", "cooperative-sticky@")

	out = ctlOK(t, "--addr", addr, "describe", "checkout")
	contains.All(t, "describe", out, "Group:      checkout", "Generation: 5", "consumer-1", "OWNED", "withheld", "moved by reason: balance 3", "first moves: orders[2] consumer-1→withheld (balance)", "follow-up rebalance", "unauthenticated", "grpc-go/")

	code, out, _ := ctl(t, "", "--addr", addr, "describe", "checkout", "-o", "json")
	var resp struct {
		Summary struct {
			GroupID string `json:"groupId"`
		}
		Decisions []map[string]any
	}
	if code != exitOK || json.Unmarshal([]byte(out), &resp) != nil || resp.Summary.GroupID != "checkout" || len(resp.Decisions) != 1 {
		t.Errorf("describe -o json: exit %d, %q", code, out)
	}

	if code, _, errOut := ctl(t, "", "--addr", addr, "describe", "no-such-group"); code != exitFail || !strings.Contains(errOut, "NotFound") {
		t.Errorf("describe of an unknown group: exit %d, %q; want 1, NotFound", code, errOut)
	}
	if code, _, errOut := ctl(t, "", "--addr", addr, "groups", "--signal", "nope"); code != exitUsage || !strings.Contains(errOut, "generation-gap") {
		t.Errorf("groups --signal nope: exit %d, %q; want 2 listing the signals", code, errOut)
	}
	if code, out, _ := ctl(t, "", "--addr", addr, "groups", "--signal", "eager-only-protocol", "-o", "json"); code != exitOK || strings.Contains(out, "checkout") {
		t.Errorf("groups --signal eager-only-protocol: exit %d, %q; want no group", code, out)
	}
}
