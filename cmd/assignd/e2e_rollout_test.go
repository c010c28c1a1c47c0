package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/rollouttest"
)

// TestBinaryRollout: assignd wires the candidate parser and the history
// into the rollout service: assignctl policy diff gates on the fleet
// (exit 4), migrate-report and the console page report it.
func TestBinaryRollout(t *testing.T) {
	assignd, ctl := binaries(t)
	dir := t.TempDir()
	current, candidate := filepath.Join(dir, "policy.yaml"), filepath.Join(dir, "candidate.yaml")
	writeFile(t, current, rollouttest.CurrentPolicy)
	writeFile(t, candidate, rollouttest.CandidatePolicy)
	p := startAssignd(t, assignd, []string{"ASSIGND_POLICY=" + current})
	defer p.stop(t)

	conn, err := grpc.NewClient(p.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := rollouttest.Record(ctx, assigndv1.NewAssignmentServiceClient(conn)); err != nil {
		t.Fatal(err)
	}
	hc := assigndv1.NewGroupHistoryServiceClient(conn)
	for _, g := range rollouttest.Groups {
		for range 200 {
			if resp, err := hc.GetGroup(ctx, &assigndv1.GetGroupRequest{GroupId: g}); err == nil && len(resp.GetDecisions()) == 2 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}

	code, out := assignctl(t, ctl, "--addr", p.grpcAddr, "policy", "diff", candidate, "--fail-moved-ratio", "0.2")
	if code != 4 || !strings.Contains(out, "billing-eu: moves 3 of 6 partitions (50%)") {
		t.Errorf("policy diff: exit %d\n%s", code, out)
	}
	code, out = assignctl(t, ctl, "--addr", p.grpcAddr, "migrate-report")
	if code != 0 || !strings.Contains(out, "4 groups: 2 ready, 1 caution, 1 blocked") {
		t.Errorf("migrate-report: exit %d\n%s", code, out)
	}
	if page := httpGet(t, "http://"+p.metricsAddr+"/console/migration"); !strings.Contains(page, "kip848-range@1") {
		t.Errorf("console page:\n%s", page)
	}
}
