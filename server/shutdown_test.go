package server_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/test/bufconn"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/selection"
)

// blockingServer serves a Server whose assignments of generation 99 block
// until unblock is closed.
func blockingServer(t *testing.T) (*server.Server, *bufconn.Listener, chan struct{}, chan struct{}, chan error) {
	entered, unblock, run := blockingRun(1)
	srv, err := server.New(selection.Default(), slog.New(slog.DiscardHandler), server.WithRunFunc(run))
	if err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	for deadline := time.Now().Add(5 * time.Second); !srv.Ready(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server did not become ready")
		}
	}
	return srv, lis, entered, unblock, served
}

// TestHealthPerService: every registered service and the server as a whole
// report SERVING while the server serves.
func TestHealthPerService(t *testing.T) {
	ts := startServer(t, nil)
	hc := healthpb.NewHealthClient(ts.conn)
	for _, svc := range []string{"", assigndv1.AssignmentService_ServiceDesc.ServiceName, healthpb.Health_ServiceDesc.ServiceName} {
		resp, err := hc.Check(callCtx(t), &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health of %q = %v, %v; want SERVING", svc, resp.GetStatus(), err)
		}
	}
	if _, err := hc.Check(callCtx(t), &healthpb.HealthCheckRequest{Service: "no.such.Service"}); codeOf(t, err) != codes.NotFound {
		t.Errorf("unknown service: %v, want NOT_FOUND", err)
	}
}

// TestGracefulShutdown: a call in flight when shutdown starts completes;
// health turns NOT_SERVING and /readyz 503 at once; Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	srv, lis, entered, unblock, served := blockingServer(t)
	conn := dialBufconn(t, lis)
	defer conn.Close()
	client := assigndv1.NewAssignmentServiceClient(conn)
	hc := healthpb.NewHealthClient(conn)
	ops := httptest.NewServer(srv.OpsHandler(nil))
	defer ops.Close()
	if got, _ := get(t, ops.URL+"/readyz"); got != http.StatusOK {
		t.Fatalf("/readyz before shutdown = %d", got)
	}

	// A watching client holds a stream open; it lets go when it sees
	// NOT_SERVING, as grpc clients with health checking do.
	watchCtx, stopWatching := context.WithCancel(callCtx(t))
	defer stopWatching()
	watch, err := hc.Watch(watchCtx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := watch.Recv(); err != nil || st.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("watch: %v %v", st, err)
	}

	inflight := make(chan error, 1)
	go func() {
		_, err := client.Assign(callCtx(t), &assigndv1.AssignRequest{ProtocolName: "range", GenerationId: 99})
		inflight <- err
	}()
	<-entered

	shutdown := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shutdown <- srv.Shutdown(ctx)
	}()
	if st, err := watch.Recv(); err != nil || st.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("watch after shutdown started: %v %v, want NOT_SERVING", st, err)
	}
	stopWatching()
	if got, _ := get(t, ops.URL+"/readyz"); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz during shutdown = %d, want 503", got)
	}
	if got, _ := get(t, ops.URL+"/healthz"); got != http.StatusOK {
		t.Errorf("/healthz during shutdown = %d, want 200", got)
	}

	close(unblock)
	if err := <-inflight; err != nil {
		t.Errorf("the call in flight failed: %v", err)
	}
	if err := <-shutdown; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

// TestShutdownTimeout: calls that outlive the grace period are cut off and
// Shutdown reports it.
func TestShutdownTimeout(t *testing.T) {
	srv, lis, entered, unblock, served := blockingServer(t)
	defer close(unblock)
	conn := dialBufconn(t, lis)
	defer conn.Close()
	inflight := make(chan error, 1)
	go func() {
		_, err := assigndv1.NewAssignmentServiceClient(conn).Assign(callCtx(t), &assigndv1.AssignRequest{ProtocolName: "range", GenerationId: 99})
		inflight <- err
	}()
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := srv.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown = %v, want the context's deadline error", err)
	}
	if err := <-inflight; codeOf(t, err) != codes.Unavailable {
		t.Errorf("the cut-off call: %v, want UNAVAILABLE", err)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
