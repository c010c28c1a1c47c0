package history

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// meterName scopes the history's instruments.
const meterName = "github.com/assignd/assignd/server/history"

// RegisterMetrics exports the fleet-level gauges of the history:
// assignd.history.groups (groups remembered) and
// assignd.history.groups.signal (groups where each signal holds, by
// signal), and assignd.history.groups.silent (groups that used to call
// and stopped, by their own rhythm: [Store.SilentGroups]), and
// assignd.history.bytes (the heap it holds as its byte bound counts it:
// [Store.Bytes]). No
// group id is a label: their cardinality is the number of signals. They
// are derived at collection time, off the Assign path.
func RegisterMetrics(mp metric.MeterProvider, h *Store) error {
	m := mp.Meter(meterName)
	var errs []error
	gauge := func(name, unit, desc string) metric.Int64ObservableGauge {
		g, err := m.Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return g
	}
	groups := gauge("assignd.history.groups", "{group}", "Consumer groups this replica remembers decisions of.")
	bySignal := gauge("assignd.history.groups.signal", "{group}", "Remembered groups where each signal holds now, by signal.")
	silent := gauge("assignd.history.groups.silent", "{group}",
		"Remembered groups that used to call at a rhythm and have been silent for three times their longest pause (at least an hour).")
	held := gauge("assignd.history.bytes", "By",
		"Memory the history holds (decisions, groups' state, inputs), as its bound (--history-bytes) counts it.")
	if err := errors.Join(errs...); err != nil {
		return err
	}
	sets := make(map[assigndv1.GroupSignal]metric.MeasurementOption)
	for v, name := range assigndv1.GroupSignal_name {
		if v != 0 {
			sets[assigndv1.GroupSignal(v)] = metric.WithAttributeSet(attribute.NewSet(attribute.String("signal", name)))
		}
	}
	_, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		counts, n := h.SignalCounts()
		o.ObserveInt64(groups, int64(n))
		o.ObserveInt64(silent, int64(h.SilentGroups()))
		o.ObserveInt64(held, h.Bytes())
		for s, opt := range sets {
			o.ObserveInt64(bySignal, int64(counts[s]), opt)
		}
		return nil
	}, groups, bySignal, silent, held)
	return err
}
