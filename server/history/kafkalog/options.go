package kafkalog

import "time"

// DefaultGapRetry is how often a gap not yet shared is retried when no
// record succeeds to trigger it.
const DefaultGapRetry = 5 * time.Second

// Option configures a Log. Options are sealed: only this package defines
// them. The Log logs and counts with its bus's logger and meter provider.
type Option interface{ apply(*config) }

type config struct {
	gapRetry time.Duration
}

func defaults() config { return config{gapRetry: DefaultGapRetry} }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithGapRetry retries sharing a gap every d. Default: [DefaultGapRetry].
func WithGapRetry(d time.Duration) Option { return optionFunc(func(c *config) { c.gapRetry = d }) }
