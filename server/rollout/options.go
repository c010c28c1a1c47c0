package rollout

import (
	"cmp"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// Defaults of the options.
const (
	// DefaultSwitchDelay is how long after a verdict is made it takes
	// effect: long enough for every replica to read it from the log, so
	// that all switch at the same instant.
	DefaultSwitchDelay = 5 * time.Second
	// DefaultEvaluateEvery is how often a step's gate is evaluated.
	DefaultEvaluateEvery = 30 * time.Second
	// DefaultTick is how often the Controller checks the serving
	// revision, publishes what is due and refreshes the Source's view.
	DefaultTick = time.Second
	// DefaultRepublish is how often the agreed state of the serving
	// revision's rollouts is re-published (STATE records), so that it
	// outlives the history topic's retention (default 24h).
	DefaultRepublish = time.Hour
	// DefaultRetry is how long a published record may go unread before
	// it is published again (Kafka unreachable, say).
	DefaultRetry = 30 * time.Second
)

// Option configures a Controller. Options are sealed: only this package
// defines them.
type Option interface{ apply(*config) }

type config struct {
	now           func() time.Time
	switchDelay   time.Duration
	evaluateEvery time.Duration
	tick          time.Duration
	republish     time.Duration
	retry         time.Duration
	replica       string
	logger        *slog.Logger
	meters        metric.MeterProvider
}

func defaults() config {
	return config{
		now: time.Now, switchDelay: DefaultSwitchDelay, evaluateEvery: DefaultEvaluateEvery, tick: DefaultTick,
		republish: DefaultRepublish, retry: DefaultRetry, logger: slog.New(slog.DiscardHandler), meters: otel.GetMeterProvider(),
	}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithClock sets the clock (tests). Default: time.Now.
func WithClock(now func() time.Time) Option {
	return optionFunc(func(c *config) {
		if now != nil {
			c.now = now
		}
	})
}

// WithSwitchDelay sets how long after a verdict it takes effect. Default:
// DefaultSwitchDelay.
func WithSwitchDelay(d time.Duration) Option {
	return optionFunc(func(c *config) { c.switchDelay = d })
}

// WithEvaluateEvery sets how often gates are evaluated. Default:
// DefaultEvaluateEvery.
func WithEvaluateEvery(d time.Duration) Option {
	return optionFunc(func(c *config) { c.evaluateEvery = d })
}

// WithTick sets how often the Controller runs ([Controller.Start]).
// Default: DefaultTick.
func WithTick(d time.Duration) Option { return optionFunc(func(c *config) { c.tick = d }) }

// WithRepublish sets how often the agreed state is re-published; 0 never
// (embedded, where nothing expires). Default: DefaultRepublish; keep it
// well under the history topic's retention.
func WithRepublish(d time.Duration) Option { return optionFunc(func(c *config) { c.republish = d }) }

// WithRetry sets how long a published record may go unread before it is
// published again. Default: DefaultRetry.
func WithRetry(d time.Duration) Option { return optionFunc(func(c *config) { c.retry = d }) }

// WithReplica names the replica in the records it makes. Default: "".
func WithReplica(name string) Option { return optionFunc(func(c *config) { c.replica = name }) }

// WithLogger logs verdicts and state changes. Default: no logging.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = cmp.Or(l, c.logger) })
}

// WithMeterProvider exports the rollout metrics. Default: the global one.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.meters = cmp.Or(mp, c.meters) })
}
