package saramaassign_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// fataler is what helpers need of *testing.T and *rapid.T alike.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// serveAssignd runs a real assignd with the default policy on a fresh
// 127.0.0.1 port until the test ends.
func serveAssignd(t testing.TB) string {
	t.Helper()
	srv, err := server.New(server.DefaultSelector(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	return serve(t, srv.Serve, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
}

// serveFake serves an AssignmentService implementation on a fresh
// 127.0.0.1 port until the test ends.
func serveFake(t testing.TB, svc assigndv1.AssignmentServiceServer) string {
	t.Helper()
	s := grpc.NewServer()
	assigndv1.RegisterAssignmentServiceServer(s, svc)
	hs := health.NewServer()
	hs.SetServingStatus(assigndv1.AssignmentService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s, hs)
	return serve(t, s.Serve, s.Stop)
}

func serve(t testing.TB, run func(net.Listener) error, stop func()) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = run(lis) }()
	t.Cleanup(stop)
	return lis.Addr().String()
}

// closedAddr is a loopback address nothing listens on.
func closedAddr(t testing.TB) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}

func newClient(t testing.TB, addr string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
