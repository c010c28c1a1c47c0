package policy

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// meterName scopes the policy's instruments.
const meterName = "github.com/assignd/assignd/server/policy"

// instruments are the policy's metrics. Attributes: rule and revision
// everywhere a rule is involved, assignor ("name@version"), and for shadows
// the shadow assignor, the side ("primary" or "shadow") and the outcome.
// All values come from the policy file or fixed sets, never from a request
// (group ids are not labels), so cardinality is bounded by the rules and
// the revisions a process has served.
type instruments struct {
	selections      metric.Int64Counter
	reloads         metric.Int64Counter
	reloadFailures  metric.Int64Counter
	shadowRuns      metric.Int64Counter
	shadowMoved     metric.Int64Counter
	shadowFollowups metric.Int64Counter
	shadowImbalance metric.Int64Histogram
	shadowDuration  metric.Float64Histogram

	meter metric.Meter
}

func newInstruments(mp metric.MeterProvider) (*instruments, error) {
	m := mp.Meter(meterName)
	in := &instruments{meter: m}
	var errs []error
	counter := func(dst *metric.Int64Counter, name, unit, desc string) {
		c, err := m.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		*dst = c
		errs = append(errs, err)
	}
	counter(&in.selections, "assignd.policy.selections", "{call}",
		"Assignor choices, by rule, revision and assignor.")
	counter(&in.reloads, "assignd.policy.reloads", "{reload}",
		"Policy revisions that replaced the previous one.")
	counter(&in.reloadFailures, "assignd.policy.reload.failures", "{reload}",
		"Policy files that could not be read or were rejected; the last good revision kept serving. Counted once per distinct bad content.")
	counter(&in.shadowRuns, "assignd.policy.shadow.runs", "{run}",
		"Shadow evaluations by outcome: compared, error, panic, skipped_busy, skipped_size.")
	counter(&in.shadowMoved, "assignd.policy.shadow.moved", "{partition}",
		"Partitions the plan takes from their previous owner, for the assignor that ran (side=primary) and its shadow (side=shadow).")
	counter(&in.shadowFollowups, "assignd.policy.shadow.followups", "{call}",
		"Compared assignments that require a follow-up rebalance, per side.")
	h, err := m.Int64Histogram("assignd.policy.shadow.imbalance", metric.WithUnit("{partition}"),
		metric.WithDescription("Largest minus smallest member partition count of the plan, per side."),
		metric.WithExplicitBucketBoundaries(0, 1, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000))
	in.shadowImbalance = h
	errs = append(errs, err)
	d, err := m.Float64Histogram("assignd.policy.shadow.duration", metric.WithUnit("s"),
		metric.WithDescription("Engine time of the compared assignments, per side."),
		metric.WithExplicitBucketBoundaries(0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5))
	in.shadowDuration = d
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("policy: creating metrics: %w", err)
	}
	return in, nil
}

// registerState exports the serving revision as an info gauge
// (assignd.policy.revision{revision, file} = 1, one series at a time) and
// whether the file on disk is currently rejected
// (assignd.policy.reload.rejected, 0 or 1), read at collection time.
func (in *instruments) registerState(state func() (revision, file string, rejected bool)) (metric.Registration, error) {
	// No unit: with "1" the Prometheus exporter would name them *_ratio.
	rev, err := in.meter.Int64ObservableGauge("assignd.policy.revision",
		metric.WithDescription("The policy revision being served (always 1; the revision and file are attributes)."))
	if err != nil {
		return nil, fmt.Errorf("policy: creating metrics: %w", err)
	}
	rej, err := in.meter.Int64ObservableGauge("assignd.policy.reload.rejected",
		metric.WithDescription("1 while the policy file on disk is invalid and an older revision keeps serving, else 0."))
	if err != nil {
		return nil, fmt.Errorf("policy: creating metrics: %w", err)
	}
	reg, err := in.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		r, f, bad := state()
		o.ObserveInt64(rev, 1, metric.WithAttributes(attribute.String("revision", r), attribute.String("file", f)))
		v := int64(0)
		if bad {
			v = 1
		}
		o.ObserveInt64(rej, v)
		return nil
	}, rev, rej)
	if err != nil {
		return nil, fmt.Errorf("policy: registering metrics: %w", err)
	}
	return reg, nil
}
