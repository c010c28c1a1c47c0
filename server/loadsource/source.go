// Package loadsource reads partition load from a Kafka cluster for the
// load-aware assignors, when the leader sends no weights: each
// partition's log-end offset, sampled in the background, becomes a
// smoothed rate in records per second. Assign never waits for Kafka: it
// reads the latest snapshot, and when that is missing or stale the caller
// plans by counts, warns and counts it.
//
// Determinism across replicas: rates are quantised (8 significant bits),
// and with a [Book] shared through the history topic every replica plans
// with the same snapshot ([Source.SnapshotWeights]).
package loadsource

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/assignd/assignd/assign"
)

// ErrNotReady is returned by [Source.Weights] when a topic has no rate
// yet: it was never sampled twice, it does not exist, or the source tracks
// too many topics already.
var ErrNotReady = errors.New("load not sampled yet")

// ErrStale is returned by [Source.Weights] when the latest sample is older
// than the staleness bound (the cluster is unreachable or slow).
var ErrStale = errors.New("load samples are stale")

// Offsets lists the log-end offsets of the partitions of topics; kadm's
// ListEndOffsets, or a fake in tests.
type Offsets func(ctx context.Context, topics ...string) (kadm.ListedOffsets, error)

// Source samples log-end offsets into smoothed per-partition rates.
type Source struct {
	list Offsets
	o    options

	book    *Book
	cluster string

	mu     sync.Mutex
	wanted map[string]time.Time    // topic -> when Weights last asked for it
	last   map[string][]offsetMark // topic -> the previous sample per partition
	rates  map[string][]float64    // topic -> smoothed rate per partition

	snap atomic.Pointer[snapshot]
}

type offsetMark struct {
	offset int64
	at     time.Time
	ok     bool
}

// snapshot is what Weights reads: immutable once published.
type snapshot struct {
	at    time.Time
	rates map[string][]float64
}

// New returns a source that lists offsets with list (for a cluster,
// kadm.NewClient(kgoClient).ListEndOffsets).
func New(list Offsets, opts ...Option) *Source {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if o.stale == 0 {
		o.stale = StaleSamples * o.interval
	}
	return &Source{list: list, o: o, book: o.book, cluster: o.cluster, wanted: map[string]time.Time{}, last: map[string][]offsetMark{}, rates: map[string][]float64{}}
}

// Run samples every interval until ctx ends. A sample's error goes to
// report (if not nil) and only delays that sample's rates: the snapshot
// ages until a sample succeeds.
func (s *Source) Run(ctx context.Context, report func(error)) {
	if s.book != nil {
		s.book.sources.n.Add(1) // assignd.load.sources
		defer s.book.sources.n.Add(-1)
	}
	t := time.NewTicker(s.o.interval)
	defer t.Stop()
	for {
		if err := s.Sample(ctx, time.Now()); err != nil && report != nil && ctx.Err() == nil {
			report(err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Sample lists the end offsets of every wanted topic once (within the
// sample timeout) and publishes the new rates, as of now. Topics nobody
// asked for during the idle time are dropped.
func (s *Source) Sample(ctx context.Context, now time.Time) error {
	s.mu.Lock()
	var topics []string
	for t, asked := range s.wanted {
		if now.Sub(asked) > s.o.idle {
			delete(s.wanted, t)
			delete(s.last, t)
			delete(s.rates, t)
			continue
		}
		topics = append(topics, t)
	}
	s.mu.Unlock()
	if len(topics) == 0 {
		s.publish(now)
		return nil
	}
	slices.Sort(topics)
	ctx, cancel := context.WithTimeout(ctx, s.o.timeout)
	defer cancel()
	listed, err := s.list(ctx, topics...)
	if listed == nil && err != nil {
		return fmt.Errorf("list end offsets: %w", err)
	}
	if err != nil {
		// Some brokers answered (kadm's ShardErrors): keep what they
		// said; the other partitions' rates wait for the next sample.
		err = fmt.Errorf("list end offsets, in part: %w", err)
	}
	s.mu.Lock()
	for _, t := range topics {
		ps, ok := listed[t]
		if !ok {
			continue
		}
		// Partitions are never removed: one a broker did not answer for
		// (kadm's ShardErrors) keeps its rate until the next sample,
		// instead of the topic shrinking and regrowing without rates.
		n := len(s.last[t])
		for p := range ps {
			n = max(n, int(p)+1) // a missing topic is listed as partition -1
		}
		if n > s.o.maxPartitions {
			continue
		}
		marks := resize(s.last[t], n)
		rates := resize(s.rates[t], n)
		for p, lo := range ps {
			if p < 0 {
				continue
			}
			if lo.Err != nil || lo.Offset < 0 {
				marks[p].ok = false
				continue
			}
			prev := marks[p]
			marks[p] = offsetMark{offset: lo.Offset, at: now, ok: true}
			if !prev.ok || !now.After(prev.at) {
				rates[p] = math.NaN() // one sample: no rate yet
				continue
			}
			r := float64(max(lo.Offset-prev.offset, 0)) / now.Sub(prev.at).Seconds()
			if math.IsNaN(rates[p]) {
				rates[p] = r
			} else {
				rates[p] = s.o.alpha*r + (1-s.o.alpha)*rates[p]
			}
		}
		s.last[t], s.rates[t] = marks, rates
	}
	s.mu.Unlock()
	s.publish(now)
	return err
}

// resize returns xs with length n, new entries NaN (rates) or zero.
func resize[T any](xs []T, n int) []T {
	if len(xs) >= n {
		return xs[:n]
	}
	out := make([]T, n)
	copy(out, xs)
	if rs, ok := any(out).([]float64); ok {
		for i := len(xs); i < n; i++ {
			rs[i] = math.NaN()
		}
	}
	return out
}

// publish swaps in a snapshot of the quantised rates of the topics whose
// every partition has one, and offers it to the book (outside the lock:
// Weights must not wait for the history topic's client).
func (s *Source) publish(now time.Time) {
	s.mu.Lock()
	sn := &snapshot{at: now, rates: make(map[string][]float64, len(s.rates))}
	for t, rs := range s.rates {
		q := make([]float64, len(rs))
		ready := len(rs) > 0
		for p, r := range rs {
			if math.IsNaN(r) {
				ready = false
				break
			}
			q[p] = quantise(r)
		}
		if ready {
			sn.rates[t] = q
		}
	}
	s.snap.Store(sn)
	s.mu.Unlock()
	if s.book != nil {
		s.book.Offer(s.cluster, now, s.o.interval, sn.rates)
	}
}

// quantise keeps 8 significant bits of a rate.
func quantise(r float64) float64 {
	if r <= 0 {
		return 0
	}
	return math.Float64frombits(math.Float64bits(r) &^ (1<<44 - 1))
}

// Weights returns the rates of topics from the latest snapshot, as of
// now, and registers topics it does not track yet for the next samples.
// It never waits for Kafka. It fails with [ErrStale] when the snapshot is
// older than the staleness bound and with [ErrNotReady] when a topic has
// no rate yet; the caller then plans by counts.
func (s *Source) Weights(topics []string, now time.Time) ([]assign.TopicWeights, error) {
	s.want(topics, now)
	sn := s.snap.Load()
	if sn == nil {
		return nil, ErrNotReady
	}
	if now.Sub(sn.at) > s.o.stale {
		return nil, fmt.Errorf("%w: the latest is %s old", ErrStale, now.Sub(sn.at).Round(time.Second))
	}
	out := make([]assign.TopicWeights, 0, len(topics))
	for _, t := range topics {
		rs, ok := sn.rates[t]
		if !ok {
			return nil, fmt.Errorf("%w: topic %q", ErrNotReady, t)
		}
		out = append(out, assign.TopicWeights{Topic: t, Weights: rs})
	}
	return out, nil
}

// want registers topics for the next samples, as asked for at now.
func (s *Source) want(topics []string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range topics {
		if _, ok := s.wanted[t]; !ok && len(s.wanted) >= s.o.maxTopics {
			continue
		}
		s.wanted[t] = now
	}
}

// SnapshotWeights is [Source.Weights] from the source's [Book] (see
// [WithBook]): the snapshot the replicas agree on, and its id. Without a
// book it is Weights, with an empty id.
func (s *Source) SnapshotWeights(topics []string, now time.Time) ([]assign.TopicWeights, string, error) {
	if s.book == nil {
		ws, err := s.Weights(topics, now)
		return ws, "", err
	}
	s.want(topics, now)
	return s.book.Weights(s.cluster, topics, now, s.o.stale)
}
