package policy

import (
	"cmp"
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/assign"
)

// Option tunes a Source (NewSource, Watch). Options are sealed: only this
// package defines them.
type Option interface{ apply(*config) }

type runFunc func(a assign.Assignor, g *assign.Group, opts ...assign.Option) (*assign.Result, error)

type config struct {
	logger              *slog.Logger
	meterProvider       metric.MeterProvider
	debounce            time.Duration
	resync              time.Duration
	shadowConcurrency   int
	shadowMaxPartitions int
	run                 runFunc
	shadowRecorder      func(context.Context, ShadowRun)
}

// Defaults of the shadow evaluations' options.
const (
	// DefaultShadowConcurrency is how many shadow evaluations run at once
	// ([WithShadowConcurrency]).
	DefaultShadowConcurrency = 1
	// DefaultShadowMaxPartitions is the largest group a shadow evaluates
	// ([WithShadowMaxPartitions]).
	DefaultShadowMaxPartitions = 100_000
)

func newConfig(opts []Option) config {
	c := config{
		logger:              slog.Default(),
		meterProvider:       otel.GetMeterProvider(),
		debounce:            200 * time.Millisecond,
		resync:              30 * time.Second,
		shadowConcurrency:   DefaultShadowConcurrency,
		shadowMaxPartitions: DefaultShadowMaxPartitions,
		run:                 assign.Run,
	}
	for _, o := range opts {
		o.apply(&c)
	}
	return c
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithLogger sets where reloads, rejected files and shadow comparisons are
// logged. Default: slog.Default().
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = cmp.Or(l, c.logger) })
}

// WithMeterProvider sets the provider of the policy's metrics. Default: the
// global provider (otel.GetMeterProvider()).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.meterProvider = cmp.Or(mp, c.meterProvider) })
}

// WithDebounce sets how long the watcher waits after the last change in the
// policy file's directory before it reads the file, so that a file being
// written, or the several renames of a Kubernetes ConfigMap update, are
// read once, complete. Default: 200ms.
func WithDebounce(d time.Duration) Option {
	return optionFunc(func(c *config) { c.debounce = max(d, 0) })
}

// WithResync sets how often the watcher re-reads the file even without a
// change notification, a safety net for filesystems that do not deliver
// them (some network and overlay mounts) and for dropped events. Unchanged
// content costs a read and a hash. 0 disables it. Default: 30s.
func WithResync(d time.Duration) Option {
	return optionFunc(func(c *config) { c.resync = max(d, 0) })
}

// WithShadowConcurrency bounds how many shadow evaluations run at once.
// Shadows run in the background, after the response is computed; when all
// slots are busy a shadow is skipped (and counted as skipped_busy), so
// shadows can never queue up behind each other nor hold back responses.
// 0 disables shadow evaluation. Default: 1, so that on a small machine
// shadows take at most one core from the assignments themselves.
func WithShadowConcurrency(n int) Option {
	return optionFunc(func(c *config) { c.shadowConcurrency = max(n, 0) })
}

// WithShadowMaxPartitions skips shadow evaluation (counted as
// skipped_size) for groups with more partitions in their topic metadata
// than n, to bound the memory and CPU a shadow may take. 0 means no limit.
// Default: 100,000.
func WithShadowMaxPartitions(n int) Option {
	return optionFunc(func(c *config) { c.shadowMaxPartitions = max(n, 0) })
}

// withRunFunc replaces assign.Run for shadow evaluation (tests).
func withRunFunc(f runFunc) Option { return optionFunc(func(c *config) { c.run = f }) }

// ShadowRun is one completed shadow evaluation: the shadow assignor's
// result on the input the primary ran on.
type ShadowRun struct {
	Group, ProtocolName string
	Rule, Revision      string
	// Shadow and Primary are the assignors, as assign.Ref names them.
	Shadow, Primary string
	Input           *assign.Group
	Result          *assign.Result
	Took            time.Duration
}

// WithShadowRecorder calls f after each completed shadow evaluation, on
// the shadow's goroutine (off the request path), for the group history.
// f must not modify the run's Input or Result. Default: none.
func WithShadowRecorder(f func(context.Context, ShadowRun)) Option {
	return optionFunc(func(c *config) { c.shadowRecorder = f })
}
