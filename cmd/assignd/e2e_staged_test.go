package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/testbed/policytest"
)

// TestBinaryStagedRollout: assignd drives a policy's staged rollout alone
// (no history topic): assignctl policy status shows the first step, then
// the last once the hold has passed; policy explain shows the rule's
// rollout, and /metrics the step.
func TestBinaryStagedRollout(t *testing.T) {
	assignd, ctl := binaries(t)
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, policytest.Canary("include: [orders-1]", "steps: [{percent: 10, hold: 1s}, {percent: 100}]"))
	p := startAssignd(t, assignd, []string{"ASSIGND_POLICY=" + path, "ASSIGND_ROLLOUT_SWITCH_DELAY=100ms", "ASSIGND_ROLLOUT_EVALUATE_EVERY=100ms"})
	defer p.stop(t)

	code, out := assignctl(t, ctl, "--addr", p.grpcAddr, "policy", "status")
	if code != 0 || !strings.Contains(out, "rule canary") {
		t.Fatalf("policy status: exit %d\n%s", code, out)
	}
	for i := 0; ; i++ {
		code, out = assignctl(t, ctl, "--addr", p.grpcAddr, "policy", "status")
		if code == 0 && strings.Contains(out, "step         2 of 2, 100%") {
			break
		}
		if i == 100 {
			t.Fatalf("the rollout did not reach its last step: exit %d\n%s", code, out)
		}
		time.Sleep(100 * time.Millisecond)
	}
	code, out = assignctl(t, ctl, "--addr", p.grpcAddr, "policy", "explain", "orders-1", "cooperative-sticky")
	if code != 0 || !strings.Contains(out, "rule canary") || !strings.Contains(out, "2 of 2") {
		t.Errorf("policy explain: exit %d\n%s", code, out)
	}
	if m := httpGet(t, "http://"+p.metricsAddr+"/metrics"); !strings.Contains(m, `assignd_policy_rollout_step{`) {
		t.Errorf("no assignd_policy_rollout_step in /metrics")
	}
}
