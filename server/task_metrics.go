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

// groupTypeMetrics are the instruments of a group type's own RPC
// (AssignTasks, AssignShare), apart from Assign's [domainMetrics], whose
// series and units are a consumer group's partitions: the call's duration
// by assignor ("name@version", "none" when none was resolved) and gRPC
// code, and what the plan moved, by assignor. Every attribute is the
// server's own, so the series are as few as its assignors times the
// codes.
type groupTypeMetrics struct {
	duration metric.Float64Histogram
	moved    metric.Int64Counter
}

// newTaskMetrics: AssignTasks' (a streams group), moves counted in task
// replicas.
func newTaskMetrics(mp metric.MeterProvider) (*groupTypeMetrics, error) {
	return newGroupTypeMetrics(mp, "assignd.assign_tasks.duration", "AssignTasks call (a streams group)", "assignd.assign_tasks.moved", "{replica}",
		"Task replicas (active or standby) that changed member, appeared, disappeared or were held for a warm-up.")
}

// newShareMetrics: AssignShare's (a share group), moves counted in
// (partition, member) pairs removed.
func newShareMetrics(mp metric.MeterProvider) (*groupTypeMetrics, error) {
	return newGroupTypeMetrics(mp, "assignd.assign_share.duration", "AssignShare call (a share group)", "assignd.assign_share.removed", "{pair}",
		"(Partition, member) pairs of the members' current assignments that the plan dropped.")
}

// newGroupTypeMetrics makes the two instruments, named in full so that
// the docs' check finds them in the code.
func newGroupTypeMetrics(mp metric.MeterProvider, duration, call, moved, movedUnit, movedDesc string) (*groupTypeMetrics, error) {
	m := mp.Meter(meterName)
	var t groupTypeMetrics
	var err error
	if t.duration, err = m.Float64Histogram(duration, metric.WithUnit("s"),
		metric.WithDescription("Time to serve an "+call+", by assignor and gRPC code."),
		metric.WithExplicitBucketBoundaries(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)); err != nil {
		return nil, fmt.Errorf("server: creating metrics: %w", err)
	}
	if t.moved, err = m.Int64Counter(moved, metric.WithUnit(movedUnit), metric.WithDescription(movedDesc)); err != nil {
		return nil, fmt.Errorf("server: creating metrics: %w", err)
	}
	return &t, nil
}

// record adds one finished call.
func (t *groupTypeMetrics) record(ctx context.Context, r *callReport, code codes.Code, err error, took time.Duration) {
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
