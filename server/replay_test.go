package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/policytest"
	"github.com/assignd/assignd/testbed/rollouttest"
)

// startFleet serves the rollout test fleet under its current policy, with
// a history and the policy parser, and records the fleet.
func startFleet(t *testing.T) assigndv1.ReplayServiceClient {
	t.Helper()
	return assigndv1.NewReplayServiceClient(startFleetServer(t).conn)
}

func startFleetServer(t *testing.T) *testServer {
	t.Helper()
	src := policytest.Serve(t, rollouttest.CurrentPolicy)
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	parse := func(file string, data []byte) (selection.Explainer, error) { return policy.Parse(file, data) }
	ts := startServer(t, src, server.WithHistory(h), server.WithExplainer(src), server.WithPolicyParser(parse))
	if err := rollouttest.Record(callCtx(t), ts.client); err != nil {
		t.Fatal(err)
	}
	hc := assigndv1.NewGroupHistoryServiceClient(ts.conn)
	for _, g := range rollouttest.Groups {
		waitGroup(t, hc, g, 2)
	}
	return ts
}

// TestMigrationConsolePage: /console/migration lists the fleet, blocked
// first, with the verdicts and group links.
func TestMigrationConsolePage(t *testing.T) {
	ts := startFleetServer(t)
	ops := httptest.NewServer(ts.srv.OpsHandler(nil))
	defer ops.Close()
	code, body := get(t, ops.URL+"/console/migration")
	page := string(body)
	if code != http.StatusOK || !strings.Contains(page, "4 of 4 groups") {
		t.Fatalf("status %d:\n%s", code, page)
	}
	blocked, caution, ready := strings.Index(page, "etl-nightly"), strings.Index(page, ">search-eu<"), strings.Index(page, ">billing-eu<")
	if blocked < 0 || caution < blocked || ready < caution || !strings.Contains(page, `href="group?id=search-eu"`) ||
		!strings.Contains(page, `class="caution">caution<`) {
		t.Errorf("page:\n%s", page)
	}
	_, body = get(t, ops.URL+"/console/migration?prefix=pay")
	if !strings.Contains(string(body), "1 of 1 groups") || strings.Contains(string(body), "etl-nightly") {
		t.Errorf("prefix pay:\n%s", body)
	}
}

// figures is the part of RebalanceFigures the fleet's tests compare.
type figures struct {
	partitions, moved, withheld, imbalance, skew, offRack int32
	followup                                              bool
}

func figuresOf(f *assigndv1.RebalanceFigures) figures {
	return figures{f.GetPartitions(), f.GetMoved(), f.GetWithheld(), f.GetImbalance(), f.GetWorstTopicSkew(), f.GetOffRack(), f.GetFollowupRequired()}
}

// TestPreviewPolicyFleet previews rollouttest.CandidatePolicy on the fleet.
// The figures follow from the fleet by hand:
//   - payments-ledger: m3 joins m1 and m2, who own 3 of 6 each; today
//     each gives one up (2 moved, withheld until revoked); capped at one
//     move, only m1 gives one up, leaving the plan 2/3/1 (imbalance 2).
//   - billing-eu: range gave m1 invoices 0-1 and ledger-eu 0-1, m2 the
//     rest (imbalance 2, skew 1 in each topic); roundrobin over
//     invoices 0-2, ledger-eu 0-2 gives m1 invoices 0, 2 and ledger-eu 1:
//     invoices 1, 2 and ledger-eu 0 move (3 of 6), imbalance 0.
//   - etl-nightly and search-eu keep their rule: nothing changes.
func TestPreviewPolicyFleet(t *testing.T) {
	rc := startFleet(t)
	resp, err := rc.PreviewPolicy(callCtx(t), &assigndv1.PreviewPolicyRequest{Policy: []byte(rollouttest.CandidatePolicy)})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetTotalGroups() != 4 || resp.GetNextPageToken() != "" || resp.GetCurrentRevision() == resp.GetCandidateRevision() {
		t.Fatalf("total %d, next %q, revisions %q %q", resp.GetTotalGroups(), resp.GetNextPageToken(), resp.GetCurrentRevision(), resp.GetCandidateRevision())
	}
	type want struct {
		group                  string
		rule, assignor, params bool
		candRule               string
		current, candidate     figures
		ratio                  float64
	}
	wants := []want{
		{group: "billing-eu", rule: true, assignor: true, candRule: "billing-roundrobin",
			current: figures{partitions: 6, imbalance: 2, skew: 1}, candidate: figures{partitions: 6, moved: 3, skew: 1}, ratio: 0.5},
		{group: "etl-nightly", candRule: "etl", current: figures{partitions: 4}, candidate: figures{partitions: 4}},
		{group: "payments-ledger", rule: true, params: true, candRule: "payments-capped",
			current:   figures{partitions: 6, moved: 2, withheld: 2, followup: true},
			candidate: figures{partitions: 6, moved: 1, withheld: 1, imbalance: 2, followup: true}, ratio: 1.0 / 6},
		{group: "search-eu", candRule: "default", current: figures{partitions: 2}, candidate: figures{partitions: 2}},
	}
	if len(resp.GetGroups()) != len(wants) {
		t.Fatalf("%d groups, want %d", len(resp.GetGroups()), len(wants))
	}
	for i, w := range wants {
		g := resp.GetGroups()[i]
		t.Run(w.group, func(t *testing.T) {
			if g.GetGroupId() != w.group || g.GetRuleChanged() != w.rule || g.GetAssignorChanged() != w.assignor || g.GetParamsChanged() != w.params {
				t.Errorf("%s: changed rule %t assignor %t params %t", g.GetGroupId(), g.GetRuleChanged(), g.GetAssignorChanged(), g.GetParamsChanged())
			}
			if g.GetCandidate().GetRule() != w.candRule {
				t.Errorf("candidate rule %q, want %q", g.GetCandidate().GetRule(), w.candRule)
			}
			if got := figuresOf(g.GetCurrent().GetFigures()); got != w.current {
				t.Errorf("current %+v, want %+v", got, w.current)
			}
			if got := figuresOf(g.GetCandidate().GetFigures()); got != w.candidate {
				t.Errorf("candidate %+v, want %+v", got, w.candidate)
			}
			if g.GetMovedRatio() != w.ratio {
				t.Errorf("moved ratio %v, want %v", g.GetMovedRatio(), w.ratio)
			}
		})
	}
}

// TestPreviewPolicyPagesAndErrors: pages of one group chain through every
// group once; an invalid candidate names its problem; a candidate that
// does not serve a group's protocol name says so in that group only.
func TestPreviewPolicyPagesAndErrors(t *testing.T) {
	rc := startFleet(t)
	ctx := callCtx(t)
	var seen []string
	for token := ""; ; {
		resp, err := rc.PreviewPolicy(ctx, &assigndv1.PreviewPolicyRequest{Policy: []byte(rollouttest.CandidatePolicy), PageSize: 1, PageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range resp.GetGroups() {
			seen = append(seen, g.GetGroupId())
		}
		if token = resp.GetNextPageToken(); token == "" {
			break
		}
	}
	if fmt.Sprint(seen) != fmt.Sprint(rollouttest.Groups) {
		t.Errorf("pages gave %v, want %v", seen, rollouttest.Groups)
	}

	_, err := rc.PreviewPolicy(ctx, &assigndv1.PreviewPolicyRequest{Policy: []byte("version: 1\nrules:\n  - name: x\n    assignor: nope@1\n"), FileName: "bad.yaml"})
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "nope@1") || !strings.Contains(err.Error(), "bad.yaml") {
		t.Errorf("invalid candidate: %v", err)
	}

	// Without the etl rule, no rule answers for "etl-custom".
	noETL := strings.Replace(rollouttest.CandidatePolicy, "protocols: [etl-custom]", "protocols: [etl-other]", 1)
	resp, err := rc.PreviewPolicy(ctx, &assigndv1.PreviewPolicyRequest{Policy: []byte(noETL), GroupIdPrefix: "etl-"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetGroups()) != 1 || resp.GetTotalGroups() != 1 {
		t.Fatalf("prefix etl-: %d groups of %d", len(resp.GetGroups()), resp.GetTotalGroups())
	}
	g := resp.GetGroups()[0]
	if !strings.Contains(g.GetCandidate().GetError(), "etl-custom") || g.GetCurrent().GetError() != "" || !g.GetRuleChanged() {
		t.Errorf("etl-nightly: current %q, candidate %q, rule changed %t", g.GetCurrent().GetError(), g.GetCandidate().GetError(), g.GetRuleChanged())
	}
}

// TestSimulateGroup replays search-eu under kip848-range@1, which is not
// rack-aware: it gives m1 (rack-b) partition 0 (rack-a) and m2 the other,
// both off their rack in both rounds, where range@1 placed both on their
// rack; and payments-ledger with one move per rebalance.
func TestSimulateGroup(t *testing.T) {
	rc := startFleet(t)
	ctx := callCtx(t)
	s, err := rc.SimulateGroup(ctx, &assigndv1.SimulateGroupRequest{GroupId: "search-eu", Assignor: "kip848-range"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.GetRounds()) != 2 || s.GetAssignor() != "kip848-range@1" {
		t.Fatalf("%d rounds of %s", len(s.GetRounds()), s.GetAssignor())
	}
	for i, r := range s.GetRounds() {
		if r.GetActualAssignor() != "range@1" || r.GetActual().GetOffRack() != 0 || r.GetSimulated().GetOffRack() != 2 || r.GetSimulated().GetMoved() != 0 {
			t.Errorf("round %d: actual %s off rack %d, simulated off rack %d moved %d", i, r.GetActualAssignor(),
				r.GetActual().GetOffRack(), r.GetSimulated().GetOffRack(), r.GetSimulated().GetMoved())
		}
	}

	s, err = rc.SimulateGroup(ctx, &assigndv1.SimulateGroupRequest{GroupId: "payments-ledger", Assignor: "cooperative-sticky@1", Params: map[string]string{"max_moves_per_rebalance": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	if s.GetActualMoved() != 2 || s.GetSimulatedMoved() != 1 || s.GetActualFollowups() != 1 || s.GetSimulatedFollowups() != 1 || s.GetParams().GetMaxMovesPerRebalance() != 1 {
		t.Errorf("moved %d/%d, follow-ups %d/%d", s.GetActualMoved(), s.GetSimulatedMoved(), s.GetActualFollowups(), s.GetSimulatedFollowups())
	}

	for _, tc := range []struct {
		req  *assigndv1.SimulateGroupRequest
		code codes.Code
	}{
		{&assigndv1.SimulateGroupRequest{GroupId: "nobody", Assignor: "range@1"}, codes.NotFound},
		{&assigndv1.SimulateGroupRequest{GroupId: "search-eu", Assignor: "nope@1"}, codes.InvalidArgument},
		{&assigndv1.SimulateGroupRequest{GroupId: "search-eu", Assignor: "range@1", Params: map[string]string{"speed": "1"}}, codes.InvalidArgument},
		// range is EAGER only; payments-ledger runs COOPERATIVE.
		{&assigndv1.SimulateGroupRequest{GroupId: "payments-ledger", Assignor: "range@1"}, codes.FailedPrecondition},
	} {
		if _, err := rc.SimulateGroup(ctx, tc.req); status.Code(err) != tc.code {
			t.Errorf("%v: %v, want %v", tc.req, err, tc.code)
		}
	}
}

// TestMigrationReportFleet: range groups map to kip848-range@1 (billing-eu
// keeps its ranges; search-eu loses the rack-aware crossing: both
// partitions move and go off their rack), payments-ledger to
// kip848-uniform@1 (sticky: today's settled 2/2/2 stays), and the custom
// protocol is blocked.
func TestMigrationReportFleet(t *testing.T) {
	rc := startFleet(t)
	resp, err := rc.MigrationReport(callCtx(t), &assigndv1.MigrationReportRequest{})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		group, server   string
		moved, rackLost int32
		userData        bool
		verdict         assigndv1.MigrationVerdict
		reason          string
	}
	wants := []want{
		{"billing-eu", "kip848-range@1", 0, 0, false, assigndv1.MigrationVerdict_MIGRATION_VERDICT_READY, "moves 0 partitions"},
		{"etl-nightly", "", 0, 0, false, assigndv1.MigrationVerdict_MIGRATION_VERDICT_BLOCKED, "not a standard assignor"},
		{"payments-ledger", "kip848-uniform@1", 0, 0, true, assigndv1.MigrationVerdict_MIGRATION_VERDICT_READY, "user data is dropped"},
		{"search-eu", "kip848-range@1", 2, 2, false, assigndv1.MigrationVerdict_MIGRATION_VERDICT_CAUTION, "2 partitions lose rack locality"},
	}
	if len(resp.GetGroups()) != len(wants) {
		t.Fatalf("%d groups", len(resp.GetGroups()))
	}
	for i, w := range wants {
		g := resp.GetGroups()[i]
		got := want{g.GetGroupId(), g.GetServerAssignor(), g.GetMovedAtSwitch(), g.GetRackLocalityLost(), g.GetUserData(), g.GetVerdict(), w.reason}
		if got != w || !strings.Contains(g.GetReason(), w.reason) {
			t.Errorf("got %+v (%q), want %+v", got, g.GetReason(), w)
		}
	}
	if p := resp.GetGroups()[2]; figuresOf(p.GetAfter()) != (figures{partitions: 6}) || p.GetToday().GetMoved() != 2 {
		t.Errorf("payments-ledger: today %+v, after %+v", figuresOf(p.GetToday()), figuresOf(p.GetAfter()))
	}
}

// TestReplayWithoutHistoryOrParser: each RPC says what the server lacks.
func TestReplayWithoutHistoryOrParser(t *testing.T) {
	ts := startServer(t, nil)
	rc := assigndv1.NewReplayServiceClient(ts.conn)
	ctx := callCtx(t)
	if _, err := rc.MigrationReport(ctx, &assigndv1.MigrationReportRequest{}); status.Code(err) != codes.Unimplemented {
		t.Errorf("MigrationReport: %v", err)
	}
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	ts = startServer(t, nil, server.WithHistory(h))
	rc = assigndv1.NewReplayServiceClient(ts.conn)
	if _, err := rc.PreviewPolicy(ctx, &assigndv1.PreviewPolicyRequest{}); status.Code(err) != codes.Unimplemented || !strings.Contains(err.Error(), "parser") {
		t.Errorf("PreviewPolicy: %v", err)
	}
}
