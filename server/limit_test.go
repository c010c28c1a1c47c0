package server_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

// TestConcurrencyLimit holds the only Assign slot with a blocked assignment:
// a second call waits, then fails with RESOURCE_EXHAUSTED before its
// deadline; a call that goes away is CANCELED; ListAssignors is not
// limited; once the slot frees, calls succeed again.
func TestConcurrencyLimit(t *testing.T) {
	entered, unblock, run := blockingRun(4)
	ts := startServer(t, nil, server.WithRunFunc(run), server.WithMaxConcurrentAssigns(1))
	req := func(gen int32) *assigndv1.AssignRequest {
		return &assigndv1.AssignRequest{ProtocolName: "range", GenerationId: gen}
	}

	held := make(chan error, 1)
	go func() {
		_, err := ts.client.Assign(callCtx(t), req(99))
		held <- err
	}()
	<-entered

	ctx, cancel := context.WithTimeout(context.Background(), 400*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := ts.client.Assign(ctx, req(1))
	code, _, info := statusDetails(t, err)
	if code != codes.ResourceExhausted || info.GetReason() != assigndv1.ErrorReason_ERROR_REASON_OVERLOADED.String() {
		t.Fatalf("over the limit: %v, want RESOURCE_EXHAUSTED with reason OVERLOADED", err)
	}
	if waited := time.Since(start); waited < 200*time.Millisecond {
		t.Errorf("gave up after %s; it should wait until shortly before its deadline", waited)
	}

	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, err := ts.client.Assign(ctx, req(1)); codeOf(t, err) != codes.Canceled {
		t.Errorf("canceled while waiting: %v, want CANCELED", err)
	}

	if _, err := ts.client.ListAssignors(callCtx(t), &assigndv1.ListAssignorsRequest{}); err != nil {
		t.Errorf("ListAssignors must not wait for an Assign slot: %v", err)
	}

	close(unblock)
	if err := <-held; err != nil {
		t.Fatalf("the call holding the slot: %v", err)
	}
	if _, err := ts.client.Assign(callCtx(t), req(1)); err != nil {
		t.Fatalf("after the slot freed: %v", err)
	}
}

// TestQueuedCallGetsTheSlot: a waiting call proceeds as soon as the slot
// frees, well within its deadline.
func TestQueuedCallGetsTheSlot(t *testing.T) {
	entered, unblock, run := blockingRun(1)
	ts := startServer(t, nil, server.WithRunFunc(run), server.WithMaxConcurrentAssigns(1))
	go func() {
		_, _ = ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{ProtocolName: "range", GenerationId: 99})
	}()
	<-entered
	time.AfterFunc(100*time.Millisecond, func() { close(unblock) })
	if _, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{ProtocolName: "range"}); err != nil {
		t.Fatalf("queued call: %v", err)
	}
}

func codeOf(t testing.TB, err error) codes.Code {
	code, _, _ := statusDetails(t, err)
	return code
}

// TestRefusedBeforeRead: once the server has seen how long a call holds
// its slot, a call that could not start before its deadline is refused
// when its headers arrive, before its request is read (an invalid
// request is refused as OVERLOADED, not INVALID_ARGUMENT), with a retry
// hint; a call with time enough still waits its turn. The queue target
// is raised past the 300 ms hold: at its default (200 ms) the call with
// time to wait would be refused for the target whenever it arrived before
// the slot freed.
func TestRefusedBeforeRead(t *testing.T) {
	entered, unblock, run := blockingRun(4)
	ts := startServer(t, nil, server.WithRunFunc(run), server.WithMaxConcurrentAssigns(1),
		server.WithQueueTarget(time.Second))
	hold := func() chan error {
		held := make(chan error, 1)
		go func() {
			_, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{ProtocolName: "range", GenerationId: 99})
			held <- err
		}()
		<-entered
		return held
	}
	// One hold of 300 ms observed.
	held := hold()
	time.Sleep(300 * time.Millisecond)
	unblock <- struct{}{}
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	held = hold()

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := ts.client.Assign(ctx, &assigndv1.AssignRequest{ProtocolName: "no-such-assignor"})
	code, _, info := statusDetails(t, err)
	if code != codes.ResourceExhausted || info.GetReason() != assigndv1.ErrorReason_ERROR_REASON_OVERLOADED.String() {
		t.Fatalf("a call that cannot start in time: %v, want RESOURCE_EXHAUSTED, OVERLOADED, before its request is read", err)
	}
	var hint time.Duration
	for _, d := range status.Convert(err).Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			hint = ri.GetRetryDelay().AsDuration()
		}
	}
	if hint < 300*time.Millisecond {
		t.Errorf("retry hint %s, want at least the 300ms hold seen", hint)
	}

	// With time to wait, the same invalid request reaches the handler.
	waiting := make(chan error, 1)
	go func() {
		_, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{ProtocolName: "no-such-assignor"})
		waiting <- err
	}()
	close(unblock)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if err := <-waiting; codeOf(t, err) != codes.InvalidArgument {
		t.Errorf("a call with time to wait: %v, want INVALID_ARGUMENT from the handler", err)
	}
}
