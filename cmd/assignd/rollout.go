package main

import (
	"flag"
	"fmt"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/internal/bus"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/rollout"
)

// rolloutConfig configures the staged rollouts (docs/staged-rollouts.md).
type rolloutConfig struct {
	switchDelay   time.Duration
	evaluateEvery time.Duration
	republish     time.Duration
}

func rolloutFlags(fs *flag.FlagSet, cfg *config) {
	c := &cfg.rollout
	fs.DurationVar(&c.switchDelay, "rollout-switch-delay", rollout.DefaultSwitchDelay, "how long after a staged rollout's verdict (advance, halt, rollback) it takes effect, so that every replica reads it first and all switch at once")
	fs.DurationVar(&c.evaluateEvery, "rollout-evaluate-every", rollout.DefaultEvaluateEvery, "how often a staged rollout's gate is evaluated")
	fs.DurationVar(&c.republish, "rollout-republish", rollout.DefaultRepublish, "how often the agreed state of the staged rollouts is re-published to the history topic, so that it outlives the topic's retention; keep it well under --history-retention")
}

// startRollouts drives the policy's staged rollouts: through the bus of
// the history topic when b is not nil (before b starts), else alone in
// the process.
func startRollouts(c rolloutConfig, src *policy.Source, hist *history.Store, b *bus.Bus, replica string, logger *slog.Logger, mp metric.MeterProvider) (*rollout.Controller, error) {
	opts := []rollout.Option{
		rollout.WithSwitchDelay(c.switchDelay), rollout.WithEvaluateEvery(c.evaluateEvery),
		rollout.WithReplica(replica), rollout.WithLogger(logger.With("component", "rollout")), rollout.WithMeterProvider(mp),
	}
	if b == nil {
		local := &rollout.LocalLog{}
		ctl, err := rollout.New(src, hist, local, append(opts, rollout.WithRepublish(0))...)
		if err != nil {
			return nil, fmt.Errorf("staged rollouts: %w", err)
		}
		local.Attach(ctl)
		ctl.Start()
		return ctl, nil
	}
	shared := rollout.NewBusLog(b, logger.With("component", "rollout"))
	ctl, err := rollout.New(src, hist, shared, append(opts, rollout.WithRepublish(c.republish))...)
	if err != nil {
		return nil, fmt.Errorf("staged rollouts: %w", err)
	}
	shared.Attach(ctl)
	ctl.Start()
	return ctl, nil
}
