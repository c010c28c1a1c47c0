package server_test

import (
	"strings"
	"testing"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

// TestQueueMetrics holds the only slot with a blocked assignment: the
// second call shows as queued on /metrics, beside the limits, and the line
// is empty again once both calls are done.
func TestQueueMetrics(t *testing.T) {
	tel := newTelemetry(t)
	entered, unblock, run := blockingRun(1)
	const budget = 64 << 20
	ts := startServer(t, nil, server.WithRunFunc(run), server.WithMaxConcurrentAssigns(1), server.WithMemoryBudget(budget),
		server.WithMeterProvider(tel.MeterProvider()))
	ops := serveOps(t, ts, tel)
	metrics := func() string {
		_, b := get(t, ops.URL+"/metrics")
		return string(b)
	}
	waitFor := func(lines ...string) {
		t.Helper()
		var text string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			text = metrics()
			missing := false
			for _, l := range lines {
				missing = missing || !strings.Contains(text, "\n"+l+"\n")
			}
			if !missing {
				return
			}
		}
		t.Fatalf("/metrics lacks one of %q:\n%s", lines, text)
	}

	done := make(chan error, 2)
	for _, gen := range []int32{99, 1} {
		go func() {
			_, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{ProtocolName: "range", GenerationId: gen})
			done <- err
		}()
		if gen == 99 {
			<-entered
		}
	}
	waitFor("assignd_assign_queued 1", "assignd_assign_inflight 1", "assignd_assign_slots 1", "assignd_assign_memory_budget_bytes 6.7108864e+07")
	close(unblock)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	waitFor("assignd_assign_queued 0", "assignd_assign_inflight 0")
}
