package rpcerr_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

func TestToStatusCodes(t *testing.T) {
	tests := []struct {
		err  error
		code codes.Code
	}{
		{nil, codes.OK},
		{context.DeadlineExceeded, codes.DeadlineExceeded},
		{fmt.Errorf("waiting: %w", context.Canceled), codes.Canceled},
		{rpcerr.ErrOverloaded, codes.ResourceExhausted},
		{&rpcerr.LimitError{What: "partitions", Limit: 1, Got: 2}, codes.ResourceExhausted},
		{fmt.Errorf("caller x may not request group g: %w", selection.ErrCallerNotAllowed), codes.PermissionDenied},
		{&rpcerr.FieldError{Field: "x", Reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP, Desc: "bad"}, codes.InvalidArgument},
		{errors.New("secret internal detail"), codes.Internal},
	}
	for _, tt := range tests {
		err := rpcerr.ToStatus(tt.err)
		if status.Code(err) != tt.code {
			t.Errorf("rpcerr.ToStatus(%v) = %v, want %s", tt.err, err, tt.code)
		}
		if tt.code == codes.Internal && status.Convert(err).Message() != rpcerr.ErrInternal.Error() {
			t.Errorf("INTERNAL leaks the cause: %v", err)
		}
		if tt.code != codes.OK && tt.code != codes.DeadlineExceeded && tt.code != codes.Canceled && rpcerr.ReasonOf(err) == assigndv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
			t.Errorf("rpcerr.ToStatus(%v) carries no ErrorInfo reason", tt.err)
		}
	}
}

// TestOverloadedRetryInfo: a refusal with a hint carries it as
// google.rpc.RetryInfo beside the OVERLOADED reason; one without a hint
// carries no RetryInfo (a delay of zero would tell a client to come back
// at once).
func TestOverloadedRetryInfo(t *testing.T) {
	for _, tt := range []struct {
		hint time.Duration
		want time.Duration // 0: no RetryInfo
	}{{250 * time.Millisecond, 250 * time.Millisecond}, {0, 0}, {-time.Second, 0}} {
		err := rpcerr.ToStatus(fmt.Errorf("admitting: %w", rpcerr.Overloaded(tt.hint)))
		if status.Code(err) != codes.ResourceExhausted || rpcerr.ReasonOf(err) != assigndv1.ErrorReason_ERROR_REASON_OVERLOADED {
			t.Fatalf("hint %s: %v, want RESOURCE_EXHAUSTED with reason OVERLOADED", tt.hint, err)
		}
		var got time.Duration
		for _, d := range status.Convert(err).Details() {
			if ri, ok := d.(*errdetails.RetryInfo); ok {
				got = ri.GetRetryDelay().AsDuration()
				if got == 0 {
					t.Errorf("hint %s: RetryInfo with a zero delay", tt.hint)
				}
			}
		}
		if got != tt.want {
			t.Errorf("hint %s: RetryInfo delay %s, want %s", tt.hint, got, tt.want)
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
			ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(rpcerr.DeadlineReserve/2))
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
			cancel(rpcerr.ErrShuttingDown)
			return ctx
		}, codes.Unavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx()
			if got := status.Code(rpcerr.ToStatus(rpcerr.CallEnded(ctx))); got != tc.want {
				t.Errorf("callEnded: %s, want %s", got, tc.want)
			}
			_, err := assign.Run(assign.Range(), &assign.Group{}, assign.WithContext(ctx))
			if !errors.Is(err, assign.ErrStopped) {
				t.Fatalf("the engine did not stop: %v", err)
			}
			if got := status.Code(rpcerr.ToStatus(rpcerr.Stopped(ctx, err))); got != tc.want {
				t.Errorf("stopped run: %s, want %s", got, tc.want)
			}
		})
	}
}
