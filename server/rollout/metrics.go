package rollout

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

const meterName = "github.com/assignd/assignd/server/rollout"

// instruments are the rollout metrics:
//
//   - assignd.policy.rollout.step{rule, revision}: the step (1-based) each
//     staged rule of the serving revision serves now; 0 when it rolled
//     back (Prometheus: assignd_policy_rollout_step).
//   - assignd.policy.rollout.halted{rule, revision}: 1 when the rule
//     halted or rolled back.
//   - assignd.policy.rollout.halts{rule, reason, on_fail}: verdicts that
//     stopped a rollout of the serving revision, read live (not when a
//     restarted replica reads the log back), by the first failing measure
//     (assignd_policy_rollout_halts_total).
type instruments struct {
	meter  metric.Meter
	step   metric.Int64ObservableGauge
	halted metric.Int64ObservableGauge
	halts  metric.Int64Counter
	reg    metric.Registration
}

func newInstruments(mp metric.MeterProvider) (*instruments, error) {
	in := &instruments{meter: mp.Meter(meterName)}
	var err error
	if in.step, err = in.meter.Int64ObservableGauge("assignd.policy.rollout.step", metric.WithUnit("{step}"),
		metric.WithDescription("The step (1-based) each staged rollout rule of the serving policy revision serves; 0 once rolled back.")); err != nil {
		return nil, err
	}
	if in.halted, err = in.meter.Int64ObservableGauge("assignd.policy.rollout.halted",
		metric.WithDescription("1 when a staged rollout rule of the serving policy revision halted or rolled back on a failed gate.")); err != nil {
		return nil, err
	}
	if in.halts, err = in.meter.Int64Counter("assignd.policy.rollout.halts", metric.WithUnit("{halt}"),
		metric.WithDescription("Staged rollouts stopped by a failed gate, by the first failing measure (reason) and on_fail.")); err != nil {
		return nil, err
	}
	return in, nil
}

func (in *instruments) register(c *Controller) error {
	var err error
	in.reg, err = in.meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		for _, r := range c.Status().GetRules() {
			attrs := metric.WithAttributes(attribute.String("rule", r.GetRule()), attribute.String("revision", r.GetRevision()))
			step := int64(min(r.GetStep(), r.GetSteps()-1) + 1)
			if r.GetRolledBack() {
				step = 0
			}
			o.ObserveInt64(in.step, step, attrs)
			h := int64(0)
			if r.GetHalted() || r.GetRolledBack() {
				h = 1
			}
			o.ObserveInt64(in.halted, h, attrs)
		}
		return nil
	}, in.step, in.halted)
	return err
}

func (in *instruments) unregister() error {
	if in.reg == nil {
		return nil
	}
	return in.reg.Unregister()
}

// halt counts a verdict that stopped a rollout.
func (in *instruments) halt(ev *assigndv1.RolloutEvent) {
	reason := "gate"
	if fs := ev.GetFailures(); len(fs) > 0 {
		switch m := fs[0].GetMeasure(); m {
		case MeasureMovedRatio, MeasureWithheldRatio, MeasureFollowups, MeasureImbalance:
			reason = m // a label value from a record: only the known ones
		}
	}
	onFail := "halt"
	if ev.GetKind() == assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ROLLBACK {
		onFail = "rollback"
	}
	in.halts.Add(context.Background(), 1, metric.WithAttributes(attribute.String("rule", ev.GetRule()),
		attribute.String("reason", reason), attribute.String("on_fail", onFail)))
}
