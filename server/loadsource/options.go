package loadsource

import "time"

// Defaults of a [Source]'s options.
const (
	// DefaultInterval is how often offsets are sampled.
	DefaultInterval = 30 * time.Second
	// StaleSamples is how many samples may be missed before the latest
	// one is too old to plan with: the default of [WithStaleAfter] is
	// StaleSamples × the interval.
	StaleSamples = 4
)

type options struct {
	book    *Book
	cluster string

	interval, timeout, stale, idle time.Duration
	alpha                          float64
	maxTopics, maxPartitions       int
}

func defaultOptions() options {
	return options{interval: DefaultInterval, timeout: 10 * time.Second, idle: 30 * time.Minute,
		alpha: 0.3, maxTopics: 10_000, maxPartitions: 1 << 16}
}

// Option tunes a [Source].
type Option func(*options)

// WithInterval sets how often offsets are sampled. Default:
// [DefaultInterval].
func WithInterval(d time.Duration) Option { return func(o *options) { o.interval = d } }

// WithStaleAfter sets how old the latest sample may be before Weights
// refuses it. Default: [StaleSamples] × the interval.
func WithStaleAfter(d time.Duration) Option { return func(o *options) { o.stale = d } }

// WithBook hands every sample to b as cluster's (the policy's load
// cluster name, "" for --load-brokers), and answers
// [Source.SnapshotWeights] from b. Default: no book.
func WithBook(b *Book, cluster string) Option {
	return func(o *options) { o.book, o.cluster = b, cluster }
}
