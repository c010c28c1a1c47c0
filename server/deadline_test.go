package server_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/testbed/shimtest"
)

// blockingRun runs the engine, except that a run of generation 99 first
// signals entered (of capacity n) and waits until unblock is closed.
func blockingRun(n int) (entered, unblock chan struct{}, run func(context.Context, assign.Assignor, *assign.Group, ...assign.Option) (*assign.Result, error)) {
	entered, unblock = make(chan struct{}, n), make(chan struct{})
	return entered, unblock, func(_ context.Context, a assign.Assignor, g *assign.Group, opts ...assign.Option) (*assign.Result, error) {
		if g.Generation == 99 {
			entered <- struct{}{}
			<-unblock
		}
		return assign.Run(a, g, opts...)
	}
}

// stoppableRun runs the engine, except that a run of generation 99 first
// signals entered and waits until its context ends, as a long engine run
// would; the engine then sees the ended context and stops.
func stoppableRun(entered chan<- struct{}) func(context.Context, assign.Assignor, *assign.Group, ...assign.Option) (*assign.Result, error) {
	return func(ctx context.Context, a assign.Assignor, g *assign.Group, opts ...assign.Option) (*assign.Result, error) {
		if g.Generation == 99 {
			entered <- struct{}{}
			<-ctx.Done()
		}
		return assign.Run(a, g, opts...)
	}
}

// smallRequest is an ordinary group: 10 members on 3 topics of 12.
func smallRequest(i int) *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{GroupId: fmt.Sprintf("small-%d", i), ProtocolName: "cooperative-sticky",
		Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 12}, {Name: "b", PartitionCount: 12}, {Name: "c", PartitionCount: 12}}}
	for m := range 10 {
		req.Members = append(req.Members, &assigndv1.Member{MemberId: fmt.Sprintf("m%d", m), Topics: []string{"a", "b", "c"}})
	}
	return req
}

// finished waits for the call log line of group and returns it.
func finished(t *testing.T, ts *testServer, group string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		for _, l := range ts.logs.lines(t, "finished call") {
			if l["group"] == group {
				return l
			}
		}
	}
	t.Fatalf("no call log line for group %q:\n%s", group, ts.logs)
	return nil
}

// scrape returns the Prometheus text of tel.
func scrape(t *testing.T, ts *testServer, tel *server.Telemetry) string {
	t.Helper()
	ops := serveOps(t, ts, tel)
	_, body := get(t, ops.URL+"/metrics")
	return string(body)
}

// TestCallEndStopsTheEngine: a computation stops when its call ends, and
// the call is logged and counted by why it ended. A call whose deadline
// passed is DEADLINE_EXCEEDED even though the client's timer fires first
// and gRPC reports a cancellation to the server; a caller that goes away
// is CANCELED.
func TestCallEndStopsTheEngine(t *testing.T) {
	tel := newTelemetry(t)
	entered := make(chan struct{}, 1)
	ts := startServer(t, nil, server.WithRunFunc(stoppableRun(entered)), server.WithMeterProvider(tel.MeterProvider()))
	for _, tc := range []struct {
		name     string
		ctx      func() (context.Context, context.CancelFunc)
		cancelAt bool // cancel once the run has started
		want     codes.Code
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 300*time.Millisecond)
		}, false, codes.DeadlineExceeded},
		{"caller gone", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), time.Minute)
		}, true, codes.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			go func() {
				<-entered
				if tc.cancelAt {
					cancel()
				}
			}()
			req := &assigndv1.AssignRequest{GroupId: tc.name, ProtocolName: "range", GenerationId: 99}
			if _, err := ts.client.Assign(ctx, req); status.Code(err) != tc.want {
				t.Fatalf("client saw %v, want %s", err, tc.want)
			}
			if line := finished(t, ts, tc.name); line["grpc.code"] != tc.want.String() {
				t.Errorf("logged %v, want %s", line["grpc.code"], tc.want)
			}
		})
	}
	text := scrape(t, ts, tel)
	for _, code := range []string{"DeadlineExceeded", "Canceled"} {
		if !regexp.MustCompile(`assignd_assign_errors[a-z_]*_total\{.*code="` + code + `".*\} 1`).MatchString(text) {
			t.Errorf("no error counted with code %s:\n%s", code, text)
		}
	}
}

// TestDeadlineRealEngine: the real engine on a long run ([shimtest.LongRangeRequest]) with
// a 200 ms deadline: the call ends with DEADLINE_EXCEEDED, logged as such,
// and the engine stops at its next check of the context.
func TestDeadlineRealEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("a long engine run; skipped with -short")
	}
	ts := startServer(t, nil, server.WithMaxPartitions(shimtest.LongRangePartitions))
	req := shimtest.LongRangeRequest()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := ts.client.Assign(ctx, req); status.Code(err) != codes.DeadlineExceeded {
		t.Fatalf("client saw %v, want DEADLINE_EXCEEDED", err)
	}
	line := finished(t, ts, req.GetGroupId())
	if line["grpc.code"] != "DeadlineExceeded" {
		t.Errorf("logged %v, want DeadlineExceeded", line["grpc.code"])
	}
	t.Logf("deadline 200 ms: the handler returned after %s (%s logged)", time.Since(start).Round(time.Millisecond), line["grpc.duration"])
}

// TestShutdownStopsComputations: when the grace period ends, computations
// in flight stop and their calls answer UNAVAILABLE with a message that
// says why, before the connections close.
func TestShutdownStopsComputations(t *testing.T) {
	entered := make(chan struct{}, 1)
	ts := startServer(t, nil, server.WithRunFunc(stoppableRun(entered)))
	inflight := make(chan error, 1)
	go func() {
		_, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{GroupId: "late", ProtocolName: "range", GenerationId: 99})
		inflight <- err
	}()
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := ts.srv.Shutdown(ctx); err == nil {
		t.Error("Shutdown = nil, want the grace period's error")
	}
	err := <-inflight
	if st := status.Convert(err); st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "shutting down") {
		t.Errorf("the stopped call: %v, want UNAVAILABLE saying the server is shutting down", err)
	}
	if line := finished(t, ts, "late"); line["grpc.code"] != "Unavailable" {
		t.Errorf("logged %v, want Unavailable", line["grpc.code"])
	}
}
