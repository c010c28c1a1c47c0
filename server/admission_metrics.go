package server

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/metric"
)

// registerAdmissionMetrics exports the line in front of the engine and
// its limits, read from a at collection time: assignd.assign.queued
// (Assign calls waiting for a slot or memory), assignd.assign.slots
// (--max-concurrent-assigns) and assignd.assign.memory.budget
// (--memory-budget). With assignd.assign.inflight and
// assignd.assign.memory.admitted they say how close a replica is to
// answering OVERLOADED: a queue that stays above zero while every slot is
// busy is the warning before the refusals.
func registerAdmissionMetrics(mp metric.MeterProvider, a *admission) error {
	m := mp.Meter(meterName)
	queued, err := m.Int64ObservableUpDownCounter("assignd.assign.queued", metric.WithUnit("{call}"),
		metric.WithDescription("Assign calls waiting in line for a concurrency slot or memory."))
	if err != nil {
		return fmt.Errorf("server: creating metrics: %w", err)
	}
	slots, err := m.Int64ObservableGauge("assignd.assign.slots", metric.WithUnit("{call}"),
		metric.WithDescription("Assign calls that may compute at once (--max-concurrent-assigns)."))
	if err != nil {
		return fmt.Errorf("server: creating metrics: %w", err)
	}
	budget, err := m.Int64ObservableGauge("assignd.assign.memory.budget", metric.WithUnit("By"),
		metric.WithDescription("Memory the Assign calls computing may take together, by their estimates (--memory-budget)."))
	if err != nil {
		return fmt.Errorf("server: creating metrics: %w", err)
	}
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(queued, int64(a.queued()))
		o.ObserveInt64(slots, int64(a.slots))
		o.ObserveInt64(budget, a.budget)
		return nil
	}, queued, slots, budget)
	if err != nil {
		return fmt.Errorf("server: registering metrics: %w", err)
	}
	return nil
}
