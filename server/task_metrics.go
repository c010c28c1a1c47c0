package server

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"google.golang.org/grpc/codes"

	"github.com/assignd/assignd/server/rpcerr"
)

// taskMetrics are AssignTasks' instruments, apart from Assign's
// [domainMetrics], whose series and units are partitions: the call's
// duration by assignor ("name@version", "none" when none was resolved)
// and gRPC code, and the task replicas moved by assignor. Every
// attribute is the server's own, so the series are as few as its task
// assignors times the codes.
type taskMetrics struct {
	duration metric.Float64Histogram
	moved    metric.Int64Counter
}

func newTaskMetrics(mp metric.MeterProvider) (*taskMetrics, error) {
	m := mp.Meter(meterName)
	var t taskMetrics
	var err error
	if t.duration, err = m.Float64Histogram("assignd.assign_tasks.duration", metric.WithUnit("s"),
		metric.WithDescription("Time to serve an AssignTasks call (a streams group), by assignor and gRPC code."),
		metric.WithExplicitBucketBoundaries(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)); err != nil {
		return nil, fmt.Errorf("server: creating metrics: %w", err)
	}
	if t.moved, err = m.Int64Counter("assignd.assign_tasks.moved", metric.WithUnit("{replica}"),
		metric.WithDescription("Task replicas (active or standby) that changed member, appeared, disappeared or were held for a warm-up.")); err != nil {
		return nil, fmt.Errorf("server: creating metrics: %w", err)
	}
	return &t, nil
}

// record adds one finished AssignTasks call.
func (t *taskMetrics) record(ctx context.Context, r *callReport, code codes.Code, err error, took time.Duration) {
	assignor := r.taskAssignor
	if assignor == "" {
		assignor = "none"
	}
	t.duration.Record(ctx, took.Seconds(), metric.WithAttributes(attribute.String("assignor", assignor),
		attribute.String("code", code.String()), attribute.String("reason", rpcerr.ReasonOf(err).String())))
	if r.ok {
		t.moved.Add(ctx, int64(r.moved), metric.WithAttributes(attribute.String("assignor", assignor)))
	}
}
