package saramaassign

import (
	"context"
	"net"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// hangingService never answers Assign until its caller gives up.
type hangingService struct {
	assigndv1.UnimplementedAssignmentServiceServer
}

func (hangingService) Assign(ctx context.Context, _ *assigndv1.AssignRequest) (*assigndv1.AssignResponse, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// With the client's own timeout turned off, the strategy still bounds the
// call itself: a hung assignd makes the leader fall back, never stall.
func TestRemoteIsBoundedEvenWithoutClientTimeout(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	assigndv1.RegisterAssignmentServiceServer(srv, hangingService{})
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)

	c, err := client.New(lis.Addr().String(), client.WithTimeout(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	for _, tc := range []struct {
		name string
		opts []Option
		max  time.Duration
	}{
		{"default", nil, client.DefaultTimeout + time.Second},
		{"explicit", []Option{WithTimeout(200 * time.Millisecond)}, time.Second},
		{"zero selects the default", []Option{WithTimeout(0)}, client.DefaultTimeout + time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(c, "range", tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if _, err := s.remote(&input{group: &assign.Group{Protocol: assign.Eager}}); err == nil {
				t.Fatal("a hung assignd answered")
			}
			if took := time.Since(start); took > tc.max {
				t.Fatalf("remote took %v, want it bounded by %v", took, tc.max)
			}
		})
	}
}
