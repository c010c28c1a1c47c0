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
	"github.com/assignd/assignd/server/rolloutstate"
)

// rolloutConfig configures the staged rollouts (docs/staged-rollouts.md).
type rolloutConfig struct {
	switchDelay   time.Duration
	evaluateEvery time.Duration
	republish     time.Duration
}

func rolloutFlags(fs *flag.FlagSet, cfg *config) {
	c := &cfg.rollout
	fs.DurationVar(&c.switchDelay, "rollout-switch-delay", rolloutstate.DefaultSwitchDelay, "how long after a staged rollout's verdict (advance, halt, rollback) it takes effect, so that every replica reads it first and all switch at once")
	fs.DurationVar(&c.evaluateEvery, "rollout-evaluate-every", rolloutstate.DefaultEvaluateEvery, "how often a staged rollout's gate is evaluated")
	fs.DurationVar(&c.republish, "rollout-republish", rolloutstate.DefaultRepublish, "how often the agreed state of the staged rollouts is re-published to the history topic, so that it outlives the topic's retention; keep it well under --history-retention")
}

// startRollouts drives the policy's staged rollouts: through the bus of
// the history topic when b is not nil (before b starts), else alone in
// the process.
func startRollouts(c rolloutConfig, src *policy.Source, hist *history.Store, b *bus.Bus, replica string, logger *slog.Logger, mp metric.MeterProvider) (*rolloutstate.Controller, error) {
	opts := []rolloutstate.Option{
		rolloutstate.WithSwitchDelay(c.switchDelay), rolloutstate.WithEvaluateEvery(c.evaluateEvery),
		rolloutstate.WithReplica(replica), rolloutstate.WithLogger(logger.With("component", "rollout")), rolloutstate.WithMeterProvider(mp),
	}
	if b == nil {
		local := &rolloutstate.LocalLog{}
		ctl, err := rolloutstate.New(src, hist, local, append(opts, rolloutstate.WithRepublish(0))...)
		if err != nil {
			return nil, fmt.Errorf("staged rollouts: %w", err)
		}
		local.Attach(ctl)
		ctl.Start()
		return ctl, nil
	}
	shared := rolloutstate.NewBusLog(b, logger.With("component", "rollout"))
	ctl, err := rolloutstate.New(src, hist, shared, append(opts, rolloutstate.WithRepublish(c.republish))...)
	if err != nil {
		return nil, fmt.Errorf("staged rollouts: %w", err)
	}
	shared.Attach(ctl)
	ctl.Start()
	return ctl, nil
}
