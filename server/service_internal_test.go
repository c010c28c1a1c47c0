package server

import (
	"context"
	"log/slog"
	"testing"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// TestExpiredDeadlineStartsNoWork: a call whose caller already gave up
// starts no work: no decoding, no engine.
func TestExpiredDeadlineStartsNoWork(t *testing.T) {
	runs := 0
	metrics, err := newDomainMetrics(metricnoop.NewMeterProvider(), func() int64 { return 0 }, func() int64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	svc := &service{
		sel: selection.Default(), logger: slog.New(slog.DiscardHandler), admission: newAdmission(1, 1<<30, time.Second, 0),
		maxPartitions: 100, metrics: metrics,
		run: func(_ context.Context, a assign.Assignor, g *assign.Group, opts ...assign.Option) (*assign.Result, error) {
			runs++
			return assign.Run(a, g, opts...)
		},
	}
	req := &assigndv1.AssignRequest{ProtocolName: "range", Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 1}}}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Millisecond))
	defer cancel()
	if _, err := svc.Assign(ctx, req); status.Code(err) != codes.DeadlineExceeded {
		t.Errorf("expired call: %v, want DEADLINE_EXCEEDED", err)
	}
	if runs != 0 {
		t.Errorf("the engine ran %d times for a call nobody waits for", runs)
	}
	if _, err := svc.Assign(context.Background(), req); err != nil || runs != 1 {
		t.Errorf("live call: %v, runs %d", err, runs)
	}
}

// TestSelectorErrors: an unknown name is the client's fault; any other
// selection.Selector failure is INTERNAL and does not leak its cause.
func TestSelectorErrors(t *testing.T) {
	metrics, _ := newDomainMetrics(metricnoop.NewMeterProvider(), func() int64 { return 0 }, func() int64 { return 0 })
	for _, tc := range []struct {
		sel  selection.Selector
		code codes.Code
	}{
		{selectorFunc(func(context.Context, selection.Query) (selection.Selection, error) {
			return selection.Selection{}, context.Canceled // a policy store that failed
		}), codes.Canceled},
		{selectorFunc(func(context.Context, selection.Query) (selection.Selection, error) {
			return selection.Selection{}, errSecret
		}), codes.Internal},
		{selectorFunc(func(context.Context, selection.Query) (selection.Selection, error) {
			return selection.Selection{}, nil // no assignor: a broken policy
		}), codes.Internal},
	} {
		svc := &service{sel: tc.sel, logger: slog.New(slog.DiscardHandler), admission: newAdmission(1, 1<<30, time.Second, 0),
			maxPartitions: 100, metrics: metrics, run: runEngine}
		_, err := svc.Assign(context.Background(), &assigndv1.AssignRequest{ProtocolName: "range"})
		if status.Code(err) != tc.code {
			t.Errorf("got %v, want %s", err, tc.code)
		}
		if status.Code(err) == codes.Internal && status.Convert(err).Message() != rpcerr.ErrInternal.Error() {
			t.Errorf("INTERNAL leaks: %v", err)
		}
	}
}

type selectorFunc func(context.Context, selection.Query) (selection.Selection, error)

func (f selectorFunc) Select(ctx context.Context, q selection.Query) (selection.Selection, error) {
	return f(ctx, q)
}

var errSecret = statusError("policy store password expired")

type statusError string

func (e statusError) Error() string { return string(e) }
