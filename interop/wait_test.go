//go:build unix

package interop

import (
	"strings"
	"testing"
	"time"
)

// waitFor polls cond every 50 ms until it holds or timeout passes, then
// fails the test with what and the output of explain.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool, explain ...func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s%s", timeout, what, explained(explain))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func explained(explain []func() string) string {
	var b strings.Builder
	for _, e := range explain {
		b.WriteString("\n")
		b.WriteString(e())
	}
	return b.String()
}

// quiet is how long a group must go without any ownership change before a
// test calls it settled: several heartbeat intervals, so that a rebalance
// that is about to start has started.
const quiet = 1500 * time.Millisecond

// waitSettled waits until cond holds and the ledger has seen no ownership
// change for quiet.
func waitSettled(t *testing.T, led *ledger, timeout time.Duration, what string, cond func() bool, explain ...func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	since, n := time.Now(), -1
	for {
		if c := led.Changes(); c != n {
			since, n = time.Now(), c
		}
		if cond() && time.Since(since) >= quiet {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s%s\nownership timeline:\n%s", timeout, what, explained(explain), led.History())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
