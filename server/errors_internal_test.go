package server

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// TestEngineErrorPaths: engine errors name members by id and fields in
// the engine's terms; the service must name request paths.
func TestEngineErrorPaths(t *testing.T) {
	req := &assigndv1.AssignRequest{Members: []*assigndv1.Member{
		{MemberId: "z"}, {MemberId: "a", Metadata: []byte{0}}, {MemberId: "z"}, {MemberId: "c"},
	}}
	raw := []bool{false, true, false, false}
	tests := []struct {
		in   *assign.InputError
		want string
	}{
		{&assign.InputError{Field: "topics[2].partition_count"}, "topics[2].partition_count"},
		{&assign.InputError{Field: "members[1].member_id"}, "members[1].member_id"},
		{&assign.InputError{Member: "z", Field: "members.member_id"}, "members[2].member_id"},
		{&assign.InputError{Member: "c", Field: "members[0].topics[3]"}, "members[3].topics[3]"},
		{&assign.InputError{Member: "a", Field: "members[0].topics[3]"}, "members[1].metadata"},
		{&assign.InputError{Member: "a", Field: "owned_partitions"}, "members[1].metadata"},
		{&assign.InputError{Member: "c", Field: "owned_partitions[0]"}, "members[3].owned_partitions[0]"},
		{&assign.InputError{Member: "gone", Field: "owned_partitions"}, "owned_partitions"},
	}
	for _, tt := range tests {
		tt.in.Err, tt.in.Reason = assign.ErrInvalidGroup, "bad"
		var fe *fieldError
		if err := engineError(tt.in, req, raw); !errors.As(err, &fe) || fe.field != tt.want || fe.member != tt.in.Member {
			t.Errorf("engineError(%+v) = %v, want field %s", tt.in, err, tt.want)
		}
	}
	plain := errors.New("not an input error")
	if err := engineError(plain, req, raw); err != plain {
		t.Errorf("engineError passed %v through as %v", plain, err)
	}
}

func TestToStatusCodes(t *testing.T) {
	tests := []struct {
		err  error
		code codes.Code
	}{
		{nil, codes.OK},
		{context.DeadlineExceeded, codes.DeadlineExceeded},
		{fmt.Errorf("waiting: %w", context.Canceled), codes.Canceled},
		{errOverloaded, codes.ResourceExhausted},
		{&limitError{what: "partitions", limit: 1, got: 2}, codes.ResourceExhausted},
		{fmt.Errorf("caller x may not request group g: %w", ErrCallerNotAllowed), codes.PermissionDenied},
		{&fieldError{field: "x", reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP, desc: "bad"}, codes.InvalidArgument},
		{errors.New("secret internal detail"), codes.Internal},
	}
	for _, tt := range tests {
		err := toStatus(tt.err)
		if status.Code(err) != tt.code {
			t.Errorf("toStatus(%v) = %v, want %s", tt.err, err, tt.code)
		}
		if tt.code == codes.Internal && status.Convert(err).Message() != errInternal.Error() {
			t.Errorf("INTERNAL leaks the cause: %v", err)
		}
		if tt.code != codes.OK && tt.code != codes.DeadlineExceeded && tt.code != codes.Canceled && reasonOf(err) == assigndv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
			t.Errorf("toStatus(%v) carries no ErrorInfo reason", tt.err)
		}
	}
}

// TestCallEnded: why a call's context ended decides its code, and a
// cancellation at the deadline (the caller's timer fired first) is a
// deadline; a run the engine stopped is mapped the same way.
func TestCallEnded(t *testing.T) {
	tests := []struct {
		name string
		ctx  func() context.Context
		want codes.Code
	}{
		{"deadline passed", func() context.Context {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
			t.Cleanup(cancel)
			return ctx
		}, codes.DeadlineExceeded},
		{"canceled at the deadline", func() context.Context {
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(deadlineReserve/2))
			t.Cleanup(cancel)
			ctx, cancel2 := context.WithCancel(ctx)
			cancel2()
			return ctx
		}, codes.DeadlineExceeded},
		{"canceled long before the deadline", func() context.Context {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			t.Cleanup(cancel)
			ctx, cancel2 := context.WithCancel(ctx)
			cancel2()
			return ctx
		}, codes.Canceled},
		{"canceled without deadline", func() context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx
		}, codes.Canceled},
		{"shutting down", func() context.Context {
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errShuttingDown)
			return ctx
		}, codes.Unavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx()
			if got := status.Code(toStatus(callEnded(ctx))); got != tc.want {
				t.Errorf("callEnded: %s, want %s", got, tc.want)
			}
			_, err := assign.Run(assign.Range(), &assign.Group{}, assign.WithContext(ctx))
			if !errors.Is(err, assign.ErrStopped) {
				t.Fatalf("the engine did not stop: %v", err)
			}
			if got := status.Code(toStatus(stopped(ctx, err))); got != tc.want {
				t.Errorf("stopped run: %s, want %s", got, tc.want)
			}
		})
	}
}
