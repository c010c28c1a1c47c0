package loadsource

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// meterName scopes the book's instruments.
const meterName = "github.com/assignd/assignd/server/loadsource"

// ignoreReason is why [Book.Apply] took nothing from a record (the reason
// attribute of assignd.load.snapshot.records.ignored).
type ignoreReason int

const (
	// ignoredDuplicate: every topic of the record already had its
	// epoch's first record (another replica sampled before it read that
	// one); expected now and then, harmless.
	ignoredDuplicate ignoreReason = iota
	// ignoredTooOld: the epoch is older than every epoch kept.
	ignoredTooOld
	// ignoredOverCap: a cap on clusters, topics, partitions or rates
	// per epoch was reached.
	ignoredOverCap
	// ignoredInvalid: a record decoded but not valid (no epoch, an epoch
	// not a multiple of its interval, a negative or NaN rate). Records
	// that do not decode at all are counted by the bus's
	// assignd.history.records.invalid.
	ignoredInvalid
	// ignoredInterval: the record's interval is not this replica's
	// --load-interval (see [WithEpochInterval]).
	ignoredInterval
	// ignoredLate: the record was written after its epoch ended and the
	// margin passed (see [Book.ApplyAt]).
	ignoredLate
	// ignoredFuture: the record's epoch starts more than the margin after
	// this replica's clock: its writer's clock is ahead. Taken, such
	// epochs would be the newest kept and push the real ones out.
	ignoredFuture
	numIgnoreReasons
)

var ignoreReasonNames = [numIgnoreReasons]string{"duplicate", "too_old", "over_cap", "invalid", "interval", "late", "future"}

func (r ignoreReason) String() string { return ignoreReasonNames[r] }

// bookMetrics are a book's instruments; nil until [Book.Instrument].
type bookMetrics struct {
	age    metric.Float64Histogram
	byName sync.Map // cluster → []metric.RecordOption, built once
}

// sources counts the sources sampling into a book (their Run running).
type sourceCount struct{ n atomic.Int64 }

// Instrument exports the book's metrics through mp:
//
//   - assignd.load.snapshot.age (histogram, s, attribute cluster): how long
//     before the call the epoch of the snapshot a call planned with
//     started (its samples are no older); shared, at least an interval
//     plus the margin;
//   - assignd.load.snapshot.records.ignored (counter, {record}, attribute
//     reason: duplicate, too_old, over_cap, invalid, interval, late,
//     future):
//     history-topic weight records [Book.Apply] took nothing from;
//   - assignd.load.sources (gauge, {source}): sources sampling into the
//     book (--load-brokers' and the policy's load clusters');
//   - assignd.load.snapshot.record.lag (gauge, s): the latest weight
//     record's time from its Kafka timestamp to its reading here: the
//     history's delivery time plus the writer's clock skew against this
//     replica's (negative: the writer's clock is ahead). Replicas agree
//     only while it stays well within the margin.
//
// Call it once, before the book is used.
func (b *Book) Instrument(mp metric.MeterProvider) error {
	m := mp.Meter(meterName)
	age, err1 := m.Float64Histogram("assignd.load.snapshot.age", metric.WithUnit("s"),
		metric.WithDescription("Age of the weight snapshot an Assign call planned with: time since its epoch started."),
		metric.WithExplicitBucketBoundaries(1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600))
	ignored, err2 := m.Int64ObservableCounter("assignd.load.snapshot.records.ignored", metric.WithUnit("{record}"),
		metric.WithDescription("Weight snapshot records read from the history topic that were ignored, by reason."))
	sources, err3 := m.Int64ObservableUpDownCounter("assignd.load.sources", metric.WithUnit("{source}"),
		metric.WithDescription("Load sources sampling Kafka (--load-brokers and the policy's load clusters)."))
	lag, err4 := m.Float64ObservableGauge("assignd.load.snapshot.record.lag", metric.WithUnit("s"),
		metric.WithDescription("The latest weight snapshot record's time from its Kafka timestamp to its reading: delivery time plus the writer's clock skew (negative: the writer's clock is ahead)."))
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		return fmt.Errorf("loadsource: creating metrics: %w", err)
	}
	opts := make([]metric.ObserveOption, numIgnoreReasons)
	for r := range opts {
		opts[r] = metric.WithAttributes(attribute.String("reason", ignoreReason(r).String()))
	}
	if _, err := m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		counts := b.ignoredCounts()
		for r, n := range counts {
			o.ObserveInt64(ignored, n, opts[r])
		}
		o.ObserveInt64(sources, b.sources.n.Load())
		if ms := b.recordLag(); ms != math.MinInt64 {
			o.ObserveFloat64(lag, float64(ms)/1000)
		}
		return nil
	}, ignored, sources, lag); err != nil {
		return fmt.Errorf("loadsource: registering metrics: %w", err)
	}
	b.mu.Lock()
	b.metrics = &bookMetrics{age: age}
	b.mu.Unlock()
	return nil
}

// recordAge records the age of a snapshot planned with.
func (m *bookMetrics) recordAge(cluster string, seconds float64) {
	opts, ok := m.byName.Load(cluster)
	if !ok {
		opts, _ = m.byName.LoadOrStore(cluster, []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet(attribute.String("cluster", cluster)))})
	}
	m.age.Record(context.Background(), seconds, opts.([]metric.RecordOption)...)
}

// recordLag is the latest record's lag in ms, math.MinInt64 before any.
func (b *Book) recordLag() int64 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.lag
}

// ignoredCounts copies the counts of records ignored, by reason.
func (b *Book) ignoredCounts() [numIgnoreReasons]int64 {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.ignored
}

// IgnoredBy is how many records [Book.Apply] ignored for reason
// ("duplicate", "too_old", "over_cap", "invalid", "interval", "late",
// "future");
// for tests and status pages.
func (b *Book) IgnoredBy(reason string) int64 {
	counts := b.ignoredCounts()
	for r, name := range ignoreReasonNames {
		if name == reason {
			return counts[r]
		}
	}
	return 0
}
