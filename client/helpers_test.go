package client_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

// fakeService answers Assign with an empty response after failing the
// first failFirst calls with UNAVAILABLE, or blocks until the call's
// context ends when block is set. It counts every attempt it sees.
type fakeService struct {
	assigndv1.UnimplementedAssignmentServiceServer
	name      string
	failFirst int64
	block     bool
	calls     atomic.Int64
}

func (f *fakeService) Assign(ctx context.Context, _ *assigndv1.AssignRequest) (*assigndv1.AssignResponse, error) {
	n := f.calls.Add(1)
	if n <= f.failFirst {
		return nil, status.Error(codes.Unavailable, "warming up")
	}
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &assigndv1.AssignResponse{Assignor: f.name}, nil
}

// serveFake serves svc on a fresh 127.0.0.1 port, with a health service
// reporting SERVING, until the test ends.
func serveFake(t *testing.T, svc assigndv1.AssignmentServiceServer) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	assigndv1.RegisterAssignmentServiceServer(s, svc)
	hs := health.NewServer()
	hs.SetServingStatus(assigndv1.AssignmentService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s, hs)
	go func() { _ = s.Serve(lis) }()
	t.Cleanup(s.Stop)
	return lis.Addr().String()
}

// serveAssignd runs a real assignd server with the default policy on a
// fresh 127.0.0.1 port until the test ends.
func serveAssignd(t testing.TB, opts ...server.Option) string {
	t.Helper()
	srv, err := server.New(server.DefaultSelector(), slog.New(slog.NewTextHandler(io.Discard, nil)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	return lis.Addr().String()
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
