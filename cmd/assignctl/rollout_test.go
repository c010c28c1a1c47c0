package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/contains"
	"github.com/assignd/assignd/testbed/policytest"
	"github.com/assignd/assignd/testbed/rollouttest"
)

// startFleetServer serves the rollout test fleet (testbed/rollouttest)
// under its current policy, recorded, with the candidate policy written
// to a file; it returns the address and the file.
func startFleetServer(t *testing.T) (addr, candidate string) {
	t.Helper()
	return startRecorded(t, rollouttest.CurrentPolicy, rollouttest.CandidatePolicy, rollouttest.Record, rollouttest.Groups)
}

// startRecorded serves assignd under the current policy, records a fleet
// with record, waits for each group's two inputs, and writes the candidate
// policy to a file.
func startRecorded(t *testing.T, current, cand string, record func(context.Context, assigndv1.AssignmentServiceClient) error, groups []string) (addr, candidate string) {
	t.Helper()
	src := policytest.Serve(t, current)
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	parse := func(file string, data []byte) (selection.Explainer, error) { return policy.Parse(file, data) }
	addr = serve(t, src, server.WithHistory(h), server.WithExplainer(src), server.WithPolicyParser(parse))
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := record(ctx, assigndv1.NewAssignmentServiceClient(cc)); err != nil {
		t.Fatal(err)
	}
	// Decisions are recorded once the responses are written.
	for _, g := range groups {
		for range 200 {
			if ins := h.Inputs(g); len(ins) == 2 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	candidate = filepath.Join(t.TempDir(), "candidate.yaml")
	if err := os.WriteFile(candidate, []byte(cand), 0o600); err != nil {
		t.Fatal(err)
	}
	return addr, candidate
}

// TestPolicyDiff: the table's summary and rows, sorted by impact; JSON;
// and the exit codes: 0 without a limit, 4 past --fail-moved-ratio, 2 for
// an invalid candidate (checked locally, before any call).
func TestPolicyDiff(t *testing.T) {
	addr, cand := startFleetServer(t)

	out := ctlOK(t, "--addr", addr, "policy", "diff", cand)
	contains.All(t, "output", out,
		"4 groups, 2 change, 0 the candidate cannot serve",
		"moved 2 -> 4 of 18 partitions, withheld 2 -> 1",
		"worst group moves 50%",
		"check: passed",
	)
	// By impact: billing-eu moves half its partitions, payments-ledger a
	// sixth; the unchanged groups follow by id.
	var order []string
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 1 && slicesContains(rollouttest.Groups, f[0]) {
			order = append(order, f[0])
			if f[0] == "billing-eu" && !strings.Contains(line, "range@1 -> roundrobin@1") {
				t.Errorf("billing-eu row: %s", line)
			}
		}
	}
	if strings.Join(order, " ") != "billing-eu payments-ledger etl-nightly search-eu" {
		t.Errorf("order %v", order)
	}

	code, out, _ := ctl(t, "", "--addr", addr, "policy", "diff", cand, "--fail-moved-ratio", "0.2", "-o", "json")
	if code != exitCheckFailed {
		t.Errorf("--fail-moved-ratio 0.2: exit %d, want %d", code, exitCheckFailed)
	}
	var res diffResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.CheckPassed || len(res.CheckFailures) != 1 || !strings.HasPrefix(res.CheckFailures[0], "billing-eu: moves 3 of 6") ||
		res.Summary.MovedCandidate != 4 || res.Summary.Changed != 2 || len(res.Groups) != 4 {
		t.Errorf("json: %+v", res)
	}
	var first assigndv1.GroupPreview
	if err := protojson.Unmarshal(res.Groups[0], &first); err != nil || first.GetGroupId() != "billing-eu" {
		t.Errorf("first group %v: %v", first.GetGroupId(), err)
	}

	if code, _, _ := ctl(t, "", "--addr", addr, "policy", "diff", cand, "--fail-moved-ratio", "0.5"); code != exitOK {
		t.Errorf("--fail-moved-ratio 0.5: exit %d, want 0 (no group moves more than half)", code)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nrules:\n  - name: x\n    assignor: nope@1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := ctl(t, "", "--addr", addr, "policy", "diff", bad); code != exitUsage || !strings.Contains(errOut, "nope@1") {
		t.Errorf("invalid candidate: exit %d, %s", code, errOut)
	}
	// A candidate that does not serve etl-custom fails the check without
	// any ratio.
	noETL := filepath.Join(t.TempDir(), "noetl.yaml")
	if err := os.WriteFile(noETL, []byte(strings.Replace(rollouttest.CandidatePolicy, "[etl-custom]", "[etl-other]", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = ctl(t, "", "--addr", addr, "policy", "diff", noETL)
	if code != exitCheckFailed || !strings.Contains(out, "etl-nightly: the candidate cannot serve it") {
		t.Errorf("candidate without etl: exit %d\n%s", code, out)
	}
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestSimulate(t *testing.T) {
	addr, _ := startFleetServer(t)
	out := ctlOK(t, "--addr", addr, "simulate", "payments-ledger", "--assignor", "cooperative-sticky@1", "--param", "max_moves_per_rebalance=1")
	contains.All(t, "the output", out, "2 recorded rebalances replayed under cooperative-sticky@1", "max_moves_per_rebalance=1", "moved 2 -> 1")
	code, out, _ := ctl(t, "", "--addr", addr, "simulate", "search-eu", "--assignor", "kip848-range", "-o", "json")
	var resp assigndv1.SimulateGroupResponse
	if err := protojson.Unmarshal([]byte(out), &resp); code != exitOK || err != nil || len(resp.GetRounds()) != 2 || resp.GetRounds()[1].GetSimulated().GetOffRack() != 2 {
		t.Errorf("json: exit %d, %v\n%s", code, err, out)
	}
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"simulate", "search-eu"}, exitUsage},
		{[]string{"simulate", "search-eu", "--assignor", "range", "--param", "rack_aware"}, exitUsage},
		{[]string{"simulate", "nobody", "--assignor", "range"}, exitFail},
		{[]string{"simulate", "search-eu", "--assignor", "range", "--param", "speed=1"}, exitFail},
	} {
		if code, _, errOut := ctl(t, "", append([]string{"--addr", addr}, tc.args...)...); code != tc.code {
			t.Errorf("%v: exit %d, want %d: %s", tc.args, code, tc.code, errOut)
		}
	}
}

func TestMigrateReport(t *testing.T) {
	addr, _ := startFleetServer(t)
	out := ctlOK(t, "--addr", addr, "migrate-report")
	if !strings.Contains(out, "4 groups: 2 ready, 1 caution, 1 blocked; 2 of 18 partitions move at the switch, 2 lose rack locality") {
		t.Errorf("summary:\n%s", out)
	}
	// Blocked first, then caution, then ready.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	rows := lines[len(lines)-4:]
	for i, want := range []string{"etl-nightly", "search-eu", "billing-eu", "payments-ledger"} {
		if !strings.HasPrefix(rows[i], want) {
			t.Errorf("row %d: %s, want %s", i, rows[i], want)
		}
	}
	if !strings.Contains(rows[1], "kip848-range@1") || !strings.Contains(rows[1], "caution") || !strings.Contains(rows[3], "kip848-uniform@1") {
		t.Errorf("rows:\n%s", strings.Join(rows, "\n"))
	}
	code, out, _ := ctl(t, "", "--addr", addr, "migrate-report", "--prefix", "search-", "-o", "json")
	var resp assigndv1.MigrationReportResponse
	if err := protojson.Unmarshal([]byte(out), &resp); code != exitOK || err != nil || len(resp.GetGroups()) != 1 ||
		resp.GetGroups()[0].GetRackLocalityLost() != 2 || resp.GetGroups()[0].GetVerdict() != assigndv1.MigrationVerdict_MIGRATION_VERDICT_CAUTION {
		t.Errorf("json: exit %d, %v\n%s", code, err, out)
	}
}

// TestLargeFleet: docs/rollout.md's example, the preview's check and the
// migration report's summary on rollouttest's large fleet.
func TestLargeFleet(t *testing.T) {
	groups := []string{"analytics-etl", "billing-invoices", "billing-ledger-eu", "etl-nightly", "fraud-scoring",
		"orders-consumer", "payments-ledger", "payments-refunds", "search-indexer", "search-suggest"}
	addr, cand := startRecorded(t, rollouttest.LargeCurrentPolicy, rollouttest.LargeCandidatePolicy, rollouttest.RecordLarge, groups)
	code, out, errOut := ctl(t, "", "--addr", addr, "policy", "diff", cand, "--fail-moved-ratio", "0.25")
	if code != exitCheckFailed {
		t.Errorf("exit %d, want %d: %s", code, exitCheckFailed, errOut)
	}
	contains.All(t, "diff", out,
		"10 groups, 7 change, 0 the candidate cannot serve",
		"check: FAILED (3)",
		"billing-invoices: moves 13 of 20 partitions (65%)",
		"billing-ledger-eu: moves 10 of 16 partitions (62%)",
		"search-suggest: moves 2 of 6 partitions (33%)",
	)
	code, out, errOut = ctl(t, "", "--addr", addr, "migrate-report")
	if code != exitOK || !strings.Contains(out, "10 groups: 7 ready, 2 caution, 1 blocked; 6 of 224 partitions move at the switch, 6 lose rack locality") {
		t.Errorf("migrate-report: exit %d %s\n%s", code, errOut, out)
	}
	t.Logf("\n%s", out)
}
