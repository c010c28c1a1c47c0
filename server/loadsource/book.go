package loadsource

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/bus"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Publisher shares a replica's weight snapshots with the other replicas;
// [BusPublisher] does, through the history topic. PublishWeights must not
// block; the records come back, in the topic's order, to [Book.Apply].
type Publisher interface {
	PublishWeights(ws *assigndv1.WeightSnapshot)
}

// Defaults of the book's options.
const (
	// DefaultMargin is how long after its epoch ends a shared snapshot
	// waits before replicas plan with it: time for the first record of the
	// epoch to reach every replica that is caught up with the topic.
	DefaultMargin = 10 * time.Second
	// DefaultKeep is how many epochs are kept per cluster.
	DefaultKeep = 4
	// DefaultMaxClusters bounds the clusters a book tracks; records of
	// others are ignored.
	DefaultMaxClusters = 64
	// DefaultMaxRates bounds the rates (partitions) one epoch of one
	// cluster holds, whatever its topics: 8 MiB of rates per epoch, so a
	// book holds at most DefaultKeep × DefaultMaxClusters × 8 MiB.
	DefaultMaxRates = 1 << 20
	// maxSnapshotRecordBytes keeps each published record well under the
	// history topic's default record cap.
	maxSnapshotRecordBytes = bus.DefaultMaxRecordBytes / 2
)

// Book holds the weight snapshots the replicas agree on, per cluster and
// per epoch (a sample's time truncated to the sampling interval), and
// answers [Book.Weights] from them.
//
// Shared (after [Book.Share]): a replica's samples are published, and
// only what comes back from the topic counts. For a (cluster, epoch,
// topic) the first record in the topic's order wins; one cluster's
// records are on one partition, so every replica sees the same first
// record. A replica plans with the newest epoch that ended at least the
// margin ago and has every topic of the group: every caught-up replica
// has that epoch, and the same one. Not shared: the replica's own samples
// are the snapshots, the newest is used at once.
//
// Memory is bounded: [DefaultKeep] epochs per cluster, [DefaultMaxClusters]
// clusters, the source's caps on topics and partitions per epoch.
type Book struct {
	margin      time.Duration
	keep        int
	maxClusters int
	maxTopics   int
	maxParts    int
	maxRates    int
	interval    int64 // ms; 0: records of any interval are taken
	sources     sourceCount

	mu       sync.RWMutex // Weights, on the Assign path, only reads
	pub      Publisher
	replica  string
	clusters map[string][]*epoch // sorted by start, oldest first
	ignored  [numIgnoreReasons]int64
	metrics  *bookMetrics
	// lag is the latest record's time from its writing to its reading
	// (ms; -1 << 63 before any): the history's delivery time plus the
	// clock skew between its writer and this replica.
	lag int64
}

// epoch is one cluster's agreed rates for one epoch. A topic's rates are
// never changed once set (shared) or are replaced whole (not shared), so
// slices handed out stay valid.
type epoch struct {
	start    int64 // Unix ms
	interval int64 // ms
	topics   map[string][]float64
	rates    int // the rates held, over all topics
}

// BookOption tunes a [Book].
type BookOption func(*Book)

// WithMargin sets how long after its epoch ends a shared snapshot waits
// before it is planned with. Default: [DefaultMargin].
func WithMargin(d time.Duration) BookOption { return func(b *Book) { b.margin = max(d, 0) } }

// WithKeep sets how many epochs are kept per cluster. Default:
// [DefaultKeep].
func WithKeep(n int) BookOption { return func(b *Book) { b.keep = max(n, 1) } }

// WithMaxClusters bounds the clusters tracked. Default: [DefaultMaxClusters].
func WithMaxClusters(n int) BookOption { return func(b *Book) { b.maxClusters = max(n, 1) } }

// WithMaxRates bounds the rates (partitions, over all topics) one
// cluster's epoch holds; topics beyond are ignored. Default:
// [DefaultMaxRates].
func WithMaxRates(n int) BookOption { return func(b *Book) { b.maxRates = max(n, 1) } }

// WithEpochInterval is the sampling interval every replica must use
// (--load-interval): shared records of another interval are ignored and
// counted (reason "interval"), so that replicas configured differently
// never mix their epochs; each then plans with the epochs of its own
// interval only. Default: 0, records of any interval are taken, each
// interval's epochs apart.
func WithEpochInterval(d time.Duration) BookOption {
	return func(b *Book) { b.interval = max(d.Milliseconds(), 0) }
}

// NewBook returns a book that is not shared.
func NewBook(opts ...BookOption) *Book {
	d := defaultOptions()
	b := &Book{margin: DefaultMargin, keep: DefaultKeep, maxClusters: DefaultMaxClusters, maxRates: DefaultMaxRates,
		maxTopics: d.maxTopics, maxParts: d.maxPartitions, clusters: map[string][]*epoch{}, lag: math.MinInt64}
	for _, o := range opts {
		o(b)
	}
	return b
}

// Share makes the book shared: samples are published through p as
// replica, and only the records [Book.Apply] reads count. Call it before
// the sources sample.
func (b *Book) Share(p Publisher, replica string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.pub, b.replica = p, replica
}

// Shared reports whether [Book.Share] was called.
func (b *Book) Shared() bool {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.pub != nil
}

// Ignored is how many records [Book.Apply] ignored, for any reason (see
// [Book.IgnoredBy]).
func (b *Book) Ignored() int64 {
	var n int64
	for _, c := range b.ignoredCounts() {
		n += c
	}
	return n
}

// epochStart is the start of the epoch of at, in Unix ms: the same on
// every replica with the same interval.
func epochStart(at time.Time, interval time.Duration) int64 {
	ms, iv := at.UnixMilli(), max(interval.Milliseconds(), 1)
	return ms - ((ms%iv)+iv)%iv
}

// Offer hands the book a sample of cluster taken at at: the quantised
// rates of the topics every partition of which has one. Shared, the
// topics the sample's epoch does not have yet are published (the book
// takes them when they come back from the topic); not shared, they become
// the epoch's rates at once.
func (b *Book) Offer(cluster string, at time.Time, interval time.Duration, rates map[string][]float64) {
	start, iv := epochStart(at, interval), max(interval.Milliseconds(), 1)
	b.mu.Lock()
	pub, replica := b.pub, b.replica
	if pub == nil {
		e, _ := b.epochLocked(cluster, start, iv)
		if e != nil {
			for t, rs := range rates {
				old, ok := e.topics[t]
				if ok || (len(e.topics) < b.maxTopics && e.rates+len(rs) <= b.maxRates) {
					e.topics[t] = rs // the newest sample of the epoch
					e.rates += len(rs) - len(old)
				}
			}
		}
		b.mu.Unlock()
		return
	}
	var have map[string][]float64
	if e := b.findLocked(cluster, start, iv); e != nil {
		have = e.topics
	}
	var missing []string
	for t := range rates {
		if _, ok := have[t]; !ok {
			missing = append(missing, t)
		}
	}
	b.mu.Unlock()
	if len(missing) == 0 {
		return
	}
	slices.Sort(missing)
	// Chunks under the record cap, topics in name order.
	rec := &assigndv1.WeightSnapshot{Cluster: cluster, EpochUnixMs: start, IntervalMs: iv, Replica: replica}
	size := 0
	for _, t := range missing {
		n := len(t) + 9*len(rates[t]) + 16
		if size+n > maxSnapshotRecordBytes && len(rec.Topics) > 0 {
			pub.PublishWeights(rec)
			rec = &assigndv1.WeightSnapshot{Cluster: cluster, EpochUnixMs: start, IntervalMs: iv, Replica: replica}
			size = 0
		}
		rec.Topics = append(rec.Topics, &assigndv1.TopicRates{Topic: t, Rates: rates[t]})
		size += n
	}
	pub.PublishWeights(rec)
}

// Apply is [Book.ApplyAt] without the record's time: a record is never
// refused as late.
func (b *Book) Apply(ws *assigndv1.WeightSnapshot) { b.ApplyAt(ws, time.Time{}) }

// ApplyAt takes a record read from the history topic, in the topic's
// order, written (its Kafka timestamp, the same for every reader) at
// written: the topics its (cluster, epoch) does not have yet. Ignored,
// and counted by reason: an invalid record, one of another interval (see
// [WithEpochInterval]), one older than every epoch kept, one over a cap,
// and, when the book is shared and written is not zero, one written after
// its epoch ended and the margin passed: replicas may already plan with
// that epoch, and would take its new topics at different moments. Every
// reader refuses the same late records, since they all read the same
// timestamp. A record of an epoch that starts more than the margin after
// this replica's clock is refused too (a writer's clock ahead). A record
// that adds some topics is counted only when others were dropped for a
// cap or as invalid; one that adds none because every topic had its first
// record already counts as a duplicate.
func (b *Book) ApplyAt(ws *assigndv1.WeightSnapshot, written time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !written.IsZero() {
		b.lag = time.Since(written).Milliseconds()
	}
	if reason, ignored := b.applyLocked(ws, written); ignored {
		b.ignored[reason]++
	}
}

func (b *Book) applyLocked(ws *assigndv1.WeightSnapshot, written time.Time) (ignoreReason, bool) {
	start, iv := ws.GetEpochUnixMs(), ws.GetIntervalMs()
	if start <= 0 || iv <= 0 || start%iv != 0 {
		return ignoredInvalid, true
	}
	if b.interval > 0 && iv != b.interval {
		return ignoredInterval, true
	}
	if b.pub != nil && !written.IsZero() && written.UnixMilli() > start+iv+b.margin.Milliseconds() {
		return ignoredLate, true
	}
	if start > time.Now().UnixMilli()+b.margin.Milliseconds() {
		// A writer whose clock is ahead. The one check on this replica's
		// clock: a replica reading the record much later (catching up)
		// takes it, but its epoch is then long past and soon evicted,
		// where taken now it would evict every real epoch.
		return ignoredFuture, true
	}
	e, why := b.epochLocked(ws.GetCluster(), start, iv)
	if e == nil {
		return why, true
	}
	took, reason, dropped := false, ignoredDuplicate, false
	for _, tr := range ws.GetTopics() {
		rs := tr.GetRates()
		switch _, ok := e.topics[tr.GetTopic()]; {
		case ok:
			// The first record of the epoch won.
		case tr.GetTopic() == "" || !validRates(rs, b.maxParts):
			if reason != ignoredOverCap {
				reason = ignoredInvalid
			}
			dropped = true
		case len(rs) > b.maxParts, len(e.topics) >= b.maxTopics, e.rates+len(rs) > b.maxRates:
			reason, dropped = ignoredOverCap, true
		default:
			e.topics[tr.GetTopic()] = slices.Clone(rs)
			e.rates += len(rs)
			took = true
		}
	}
	return reason, !took || dropped
}

// validRates: a list too long is over a cap, not invalid.
func validRates(rs []float64, maxParts int) bool {
	if len(rs) == 0 {
		return false
	}
	for _, r := range rs {
		if math.IsNaN(r) || math.IsInf(r, 0) || r < 0 {
			return false
		}
	}
	return true
}

// findLocked returns cluster's epoch of interval starting at start, or
// nil.
func (b *Book) findLocked(cluster string, start, interval int64) *epoch {
	for _, e := range b.clusters[cluster] {
		if e.start == start && e.interval == interval {
			return e
		}
	}
	return nil
}

// before orders epochs: by start, then by interval (epochs of different
// intervals are apart, never mixed).
func (e *epoch) before(start, interval int64) bool {
	return e.start < start || (e.start == start && e.interval < interval)
}

// epochLocked returns cluster's epoch of interval starting at start,
// adding it when missing and evicting the oldest beyond the cap; nil and
// the reason when the epoch is older than every one kept at the cap, or
// the cluster is over the cap.
func (b *Book) epochLocked(cluster string, start, interval int64) (*epoch, ignoreReason) {
	es, known := b.clusters[cluster]
	if !known && len(b.clusters) >= b.maxClusters {
		b.forgetStaleLocked(start - int64(b.keep)*interval)
	}
	if !known && len(b.clusters) >= b.maxClusters {
		return nil, ignoredOverCap
	}
	i := sort.Search(len(es), func(i int) bool { return !es[i].before(start, interval) })
	if i < len(es) && es[i].start == start && es[i].interval == interval {
		return es[i], 0
	}
	if len(es) >= b.keep && i == 0 {
		return nil, ignoredTooOld
	}
	e := &epoch{start: start, interval: interval, topics: map[string][]float64{}}
	es = slices.Insert(es, i, e)
	if len(es) > b.keep {
		es = slices.Delete(es, 0, len(es)-b.keep)
	}
	b.clusters[cluster] = es
	return e, 0
}

// forgetStaleLocked drops the clusters whose newest epoch ended by
// before: clusters a policy no longer names (renamed, removed) would
// otherwise hold their slots for good. Their snapshots are past the
// staleness bound as seen from a record that much newer (keep intervals,
// the stale bound's default), so no call could plan with them: dropping
// them changes a fallback's reason at most, whatever order the replicas
// read the clusters' partitions in.
func (b *Book) forgetStaleLocked(before int64) {
	for name, es := range b.clusters {
		if last := es[len(es)-1]; last.start+last.interval <= before {
			delete(b.clusters, name)
		}
	}
}

// ErrNoSnapshot is returned by [Book.Weights] when no epoch kept has
// every topic asked for.
var ErrNoSnapshot = errors.New("no shared weight snapshot has every topic")

// Weights returns the rates of topics from the snapshot the replicas
// agree on as of now, and its id, "<cluster>@<epoch start, RFC 3339>".
// Shared, that is the newest epoch that ended at least the margin ago
// and has every topic; not shared, the newest with every topic. A
// snapshot whose epoch ended more than stale ago fails with [ErrStale];
// none with every topic, with [ErrNoSnapshot] (or [ErrNotReady] when the
// cluster has none at all).
func (b *Book) Weights(cluster string, topics []string, now time.Time, stale time.Duration) ([]assign.TopicWeights, string, error) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	es := b.clusters[cluster]
	if len(es) == 0 {
		return nil, "", ErrNotReady
	}
	nowMs := now.UnixMilli()
	eligible := false
	for i := len(es) - 1; i >= 0; i-- {
		e := es[i]
		end := e.start + e.interval
		if b.pub != nil && end+b.margin.Milliseconds() > nowMs {
			continue // not every replica may have it yet
		}
		eligible = true
		if !hasAll(e.topics, topics) {
			continue
		}
		age := time.Duration(nowMs-end) * time.Millisecond
		if age > stale {
			return nil, "", fmt.Errorf("%w: the latest shared snapshot with these topics ended %s ago", ErrStale, age.Round(time.Second))
		}
		if b.metrics != nil {
			// From the epoch's start: its samples are no older than that,
			// and not shared the newest epoch has not ended yet.
			b.metrics.recordAge(cluster, float64(nowMs-e.start)/1000)
		}
		out := make([]assign.TopicWeights, len(topics))
		for j, t := range topics {
			out[j] = assign.TopicWeights{Topic: t, Weights: e.topics[t]}
		}
		return out, SnapshotID(cluster, e.start), nil
	}
	if !eligible {
		return nil, "", fmt.Errorf("%w: no shared snapshot is past the propagation margin (%s) yet", ErrNotReady, b.margin)
	}
	return nil, "", ErrNoSnapshot
}

func hasAll(m map[string][]float64, topics []string) bool {
	for _, t := range topics {
		if _, ok := m[t]; !ok {
			return false
		}
	}
	return true
}

// SnapshotID names the snapshot of cluster's epoch starting at start
// (Unix ms): "<cluster>@<start, RFC 3339 UTC>".
func SnapshotID(cluster string, start int64) string {
	return cluster + "@" + time.UnixMilli(start).UTC().Format(time.RFC3339Nano)
}

// Epochs lists the starts of cluster's epochs kept, oldest first, with
// their topic counts; for tests and status pages.
func (b *Book) Epochs(cluster string) map[time.Time]int {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := map[time.Time]int{}
	for _, e := range b.clusters[cluster] {
		out[time.UnixMilli(e.start).UTC()] = len(e.topics)
	}
	return out
}
