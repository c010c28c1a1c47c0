package loadsource

import "time"

type options struct {
	book    *Book
	cluster string

	interval, timeout, stale, idle time.Duration
	alpha                          float64
	maxTopics, maxPartitions       int
}

func defaultOptions() options {
	return options{interval: 30 * time.Second, timeout: 10 * time.Second, stale: 2 * time.Minute, idle: 30 * time.Minute,
		alpha: 0.3, maxTopics: 10_000, maxPartitions: 1 << 16}
}

// Option tunes a [Source].
type Option func(*options)

// WithInterval sets how often offsets are sampled. Default: 30 s.
func WithInterval(d time.Duration) Option { return func(o *options) { o.interval = d } }

// WithStaleAfter sets how old the latest sample may be before Weights
// refuses it. Default: 2 min (four missed samples).
func WithStaleAfter(d time.Duration) Option { return func(o *options) { o.stale = d } }

// WithBook hands every sample to b as cluster's (the policy's load
// cluster name, "" for --load-brokers), and answers
// [Source.SnapshotWeights] from b. Default: no book.
func WithBook(b *Book, cluster string) Option {
	return func(o *options) { o.book, o.cluster = b, cluster }
}
