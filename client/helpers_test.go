package client_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
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
	userAgent atomic.Value // string: the last call's user-agent header
}

func (f *fakeService) Assign(ctx context.Context, _ *assigndv1.AssignRequest) (*assigndv1.AssignResponse, error) {
	n := f.calls.Add(1)
	if md, ok := metadata.FromIncomingContext(ctx); ok && len(md.Get("user-agent")) > 0 {
		f.userAgent.Store(md.Get("user-agent")[0])
	}
	if n <= f.failFirst {
		return nil, status.Error(codes.Unavailable, "warming up")
	}
	if f.block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &assigndv1.AssignResponse{Assignor: f.name}, nil
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
