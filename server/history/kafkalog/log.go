package kafkalog

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/metric"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
)

const meterName = "github.com/assignd/assignd/server/history/kafkalog"

// Log is one replica's end of the shared history: a [history.Publisher]
// producing to the topic and a consumer applying the topic to a Store.
type Log struct {
	cfg   config
	cl    *kgo.Client
	store atomic.Pointer[history.Store]
	// queue holds the records Publish handed over, for pump to marshal
	// and produce off the Assign path.
	queue chan published

	dropped, produced, consumed, invalid metric.Int64Counter
	rollouts                             rolloutFeed

	mu      sync.Mutex
	gap     pending
	sending bool // a gap record is in flight
	healthy bool // the last record was delivered
	// waiting counts the records handed to the client and not finished
	// (delivered or failed); progress is when one last finished, or when
	// the first of them was handed over.
	waiting  int
	progress time.Time

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// published is a record Publish took.
type published struct {
	d     *assigndv1.Decision
	input []byte
}

// New returns a Log producing to and consuming from the brokers. It does
// not contact them: [Log.Start] does, in the background.
func New(brokers []string, opts ...Option) (*Log, error) {
	cfg := defaults()
	for _, o := range opts {
		o.apply(&cfg)
	}
	switch {
	case len(brokers) == 0:
		return nil, errors.New("kafkalog: no brokers")
	case cfg.topic == "":
		return nil, errors.New("kafkalog: empty topic name")
	case cfg.buffer < 1 || cfg.maxRecordBytes < 1024 || cfg.deliveryTimeout <= 0 || cfg.gapRetry <= 0 || cfg.partitions < 1 || cfg.retention <= 0:
		return nil, errors.New("kafkalog: buffer, partitions, retention and timeouts must be positive, the record cap at least 1 KiB")
	}
	kopts := []kgo.Opt{
		kgo.SeedBrokers(brokers...),
		kgo.ClientID("assignd-history"),
		kgo.DefaultProduceTopic(cfg.topic),
		kgo.MaxBufferedRecords(cfg.buffer),
		kgo.RecordDeliveryTimeout(cfg.deliveryTimeout),
		// Records carry their own identity (replica, incarnation,
		// sequence) and Store drops duplicates, so the idempotent
		// producer is not needed; without it, aborting buffered records
		// when Kafka stalls (watch) is safe, and no IDEMPOTENT_WRITE ACL
		// is asked for.
		kgo.DisableIdempotentWrite(),
		// A record is the cap plus the batch's overhead.
		kgo.ProducerBatchMaxBytes(int32(cfg.maxRecordBytes + 16<<10)),
		kgo.ProducerLinger(5 * time.Millisecond),
		// Find a broker that came back within a second, not the default
		// 5: records made meanwhile would be dropped.
		kgo.MetadataMinAge(time.Second),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxBytes(16 << 20),
	}
	if cfg.tls != nil {
		kopts = append(kopts, kgo.DialTLSConfig(cfg.tls))
	}
	if cfg.sasl != nil {
		kopts = append(kopts, kgo.SASL(cfg.sasl))
	}
	cl, err := kgo.NewClient(append(kopts, cfg.kgo...)...)
	if err != nil {
		return nil, fmt.Errorf("kafkalog: %w", err)
	}
	l := &Log{cfg: cfg, cl: cl, queue: make(chan published, cfg.buffer), healthy: true}
	m := cfg.meters.Meter(meterName)
	if l.dropped, err = m.Int64Counter("assignd.history.records.dropped", metric.WithUnit("{record}"),
		metric.WithDescription("History records this replica could not share through Kafka: its buffer was full, or Kafka did not take them in time.")); err != nil {
		cl.Close()
		return nil, err
	}
	if l.produced, err = m.Int64Counter("assignd.history.records.produced", metric.WithUnit("{record}"),
		metric.WithDescription("History records this replica shared through Kafka.")); err != nil {
		cl.Close()
		return nil, err
	}
	if l.consumed, err = m.Int64Counter("assignd.history.records.consumed", metric.WithUnit("{record}"),
		metric.WithDescription("History records read from Kafka, this replica's included.")); err != nil {
		cl.Close()
		return nil, err
	}
	if l.invalid, err = m.Int64Counter("assignd.history.records.invalid", metric.WithUnit("{record}"),
		metric.WithDescription("Records of the history topic that are not an assignd.v1.HistoryRecord; skipped.")); err != nil {
		cl.Close()
		return nil, err
	}
	return l, nil
}

// Start creates the topic if it is missing, then consumes it from its
// start into s, in the background until Close; it also starts sharing the
// records published. s is the Store that publishes through l
// (history.WithPublisher(l)). Start returns at once: with Kafka
// unreachable, it keeps trying.
func (l *Log) Start(s *history.Store) {
	l.store.Store(s)
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.wg.Add(3)
	go func() {
		defer l.wg.Done()
		l.pump(l.ctx)
	}()
	go func() {
		defer l.wg.Done()
		l.watch(l.ctx)
	}()
	go func() {
		defer l.wg.Done()
		if !l.ensureTopic(l.ctx) {
			return
		}
		l.cl.AddConsumeTopics(l.cfg.topic)
		l.consume(l.ctx)
	}()
}

// Close stops consuming, produces the records queued, waits up to the
// delivery timeout for them, and closes the client.
func (l *Log) Close() {
	if l.cancel != nil {
		l.cancel()
		l.wg.Wait()
	}
	ctx, cancel := context.WithTimeout(context.Background(), l.cfg.deliveryTimeout)
	defer cancel()
	_ = l.cl.Flush(ctx) // what is not delivered by now is dropped
	l.cl.Close()
}

// ensureTopic creates the topic unless it exists, retrying while Kafka is
// unreachable. It reports false when ctx ended first.
func (l *Log) ensureTopic(ctx context.Context) bool {
	adm := kadm.NewClient(l.cl)
	retention := strconv.FormatInt(l.cfg.retention.Milliseconds(), 10)
	// Retention deletes whole segments: roll them at an eighth of it so
	// that records go within about 1.125 times the retention.
	segment := strconv.FormatInt(max(l.cfg.retention.Milliseconds()/8, 60_000), 10)
	configs := map[string]*string{
		"cleanup.policy": kadm.StringPtr("delete"),
		"retention.ms":   &retention,
		"segment.ms":     &segment,
	}
	backoff := 250 * time.Millisecond
	for warned := false; ; {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		resp, err := adm.CreateTopic(rctx, l.cfg.partitions, l.cfg.replicationFactor, configs, l.cfg.topic)
		cancel()
		if err == nil {
			err = resp.Err
		}
		switch {
		case err == nil:
			l.cfg.logger.Info("history topic created", "topic", l.cfg.topic, "partitions", l.cfg.partitions,
				"retention", l.cfg.retention)
			return true
		case errors.Is(err, kerr.TopicAlreadyExists):
			return true
		case ctx.Err() != nil:
			return false
		case kerrNonRetriable(err):
			// Not allowed to create topics, say: the topic may exist all
			// the same, created by the operator.
			l.cfg.logger.Warn("cannot create the history topic; consuming it as it is", "topic", l.cfg.topic, "error", err)
			return true
		}
		if !warned {
			l.cfg.logger.Warn("history: Kafka unreachable; Assign is unaffected, retrying", "topic", l.cfg.topic, "error", err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
	}
}

func kerrNonRetriable(err error) bool {
	var ke *kerr.Error
	return errors.As(err, &ke) && !ke.Retriable
}

// consume applies every record of the topic to the Store until ctx ends.
func (l *Log) consume(ctx context.Context) {
	var lastErr time.Time
	for {
		fs := l.cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return
		}
		fs.EachError(func(topic string, p int32, err error) {
			if time.Since(lastErr) > time.Minute {
				lastErr = time.Now()
				l.cfg.logger.Warn("history: reading the topic failed; retrying", "topic", topic, "partition", p, "error", err)
			}
		})
		n := int64(0)
		fs.EachRecord(func(r *kgo.Record) {
			rec := new(assigndv1.HistoryRecord)
			if err := proto.Unmarshal(r.Value, rec); err != nil {
				l.invalid.Add(ctx, 1)
				return
			}
			n++
			if ev := rec.GetRolloutEvent(); ev != nil {
				l.applyRollout(r.Key, ev)
				return
			}
			if l.applyWeights(rec, r.Timestamp) {
				return
			}
			l.store.Load().Apply(rec)
		})
		l.consumed.Add(ctx, n)
	}
}

// Publish queues d and its input for sharing, without blocking; see
// [history.Publisher]. A full queue, or Kafka known to be failing, drops
// the record (counted).
func (l *Log) Publish(d *assigndv1.Decision, input []byte) {
	l.mu.Lock()
	down := !l.healthy
	l.mu.Unlock()
	if down {
		// Kafka failed the last record: drop at once until a gap record
		// gets through (watch retries it every gapRetry) and shows Kafka
		// is back.
		l.drop(d.GetGroupId(), errKafkaDown)
		return
	}
	select {
	case l.queue <- published{d, input}:
	default:
		l.fail()
		l.drop(d.GetGroupId(), errQueueFull)
	}
}

var errQueueFull = errors.New("the queue of records for Kafka is full")

// pump marshals and produces the records queued, until ctx ends; then
// it produces what is left in the queue.
func (l *Log) pump(ctx context.Context) {
	for {
		select {
		case p := <-l.queue:
			l.send(p)
		case <-ctx.Done():
			for {
				select {
				case p := <-l.queue:
					l.send(p)
				default:
					return
				}
			}
		}
	}
}

// send produces one record: its decision and, if the record stays within
// the cap and it is no shadow run, its input. The input is appended as
// field 3 to the decision's encoding (a valid HistoryRecord: fields may
// come in any order), so it is copied, not marshaled.
func (l *Log) send(p published) {
	b, err := proto.Marshal(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Decision{Decision: p.d}})
	if err == nil && !p.d.GetShadow() && p.input != nil && len(b)+len(p.input)+protowire.SizeTag(3)+protowire.SizeVarint(uint64(len(p.input))) <= l.cfg.maxRecordBytes {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendBytes(b, p.input)
	}
	if err != nil || len(b) > l.cfg.maxRecordBytes {
		l.drop(p.d.GetGroupId(), fmt.Errorf("record of %d bytes over the cap of %d", len(b), l.cfg.maxRecordBytes))
		return
	}
	group := p.d.GetGroupId()
	l.produce(&kgo.Record{Key: []byte(group), Value: b}, func(err error) {
		if err != nil {
			l.fail()
			l.drop(group, err)
			return
		}
		l.delivered()
	})
}

// produce hands r to the client without blocking, keeping count of the
// records waiting; done is called once with the outcome.
func (l *Log) produce(r *kgo.Record, done func(error)) {
	l.mu.Lock()
	if l.waiting == 0 {
		l.progress = time.Now()
	}
	l.waiting++
	l.mu.Unlock()
	l.cl.TryProduce(context.Background(), r, func(_ *kgo.Record, err error) {
		l.mu.Lock()
		l.waiting--
		l.progress = time.Now()
		l.mu.Unlock()
		done(err)
	})
}

// stalled reports whether records have waited a delivery timeout with
// none finishing: Kafka is unreachable.
func (l *Log) stalled(now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiting > 0 && now.Sub(l.progress) > l.cfg.deliveryTimeout
}

// errKafkaDown is the reason of records dropped while Kafka is known to
// be failing.
var errKafkaDown = errors.New("dropped without trying: Kafka failed the records before")

// drop counts a record not shared.
func (l *Log) drop(group string, err error) {
	l.dropped.Add(context.Background(), 1)
	l.mu.Lock()
	if !errors.Is(err, errKafkaDown) || l.gap.reason == "" {
		l.gap.add(group, time.Now(), err.Error())
	} else {
		l.gap.add(group, time.Now(), l.gap.reason) // keep Kafka's own error
	}
	l.mu.Unlock()
}

// fail notes that Kafka failed a record: the records after it are
// dropped at once until it is back.
func (l *Log) fail() {
	l.mu.Lock()
	first := l.healthy
	l.healthy = false
	l.mu.Unlock()
	if first {
		l.cfg.logger.Warn("history: records are not reaching Kafka; dropping them until it is back (Assign is unaffected)", "topic", l.cfg.topic)
	}
}

// delivered notes a record Kafka took: sharing works, so a gap waiting
// can be shared.
func (l *Log) delivered() {
	l.produced.Add(context.Background(), 1)
	l.mu.Lock()
	l.healthy = true
	send := l.gap.dropped > 0 && !l.sending
	l.mu.Unlock()
	if send {
		// Promises must not produce: a goroutine does.
		go l.sendGap()
	}
}

// watch shares a waiting gap every gapRetry, for when no decision comes
// to show that Kafka is back, and fails the records buffered when Kafka
// has stalled for the delivery timeout. franz-go only checks a record's
// delivery timeout around a produce request, and with the broker
// unreachable no request is made: the buffer would stay full, and every
// record after it would be dropped without a gap ever closing.
func (l *Log) watch(ctx context.Context) {
	gaps := time.NewTicker(l.cfg.gapRetry)
	defer gaps.Stop()
	stalls := time.NewTicker(max(l.cfg.deliveryTimeout/4, 10*time.Millisecond))
	defer stalls.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-gaps.C:
			l.sendGap()
		case now := <-stalls.C:
			if l.stalled(now) {
				l.fail()
				// Safe without idempotence or transactions: the records
				// fail with ErrAborting and are counted as dropped.
				l.cl.UnsafeAbortBufferedRecords()
			}
		}
	}
}

// sendGap produces the gap waiting, if any and none is in flight. The
// replica notes its own gap when Kafka has taken it, as every other
// replica does on reading it; a gap Kafka does not take is merged back.
func (l *Log) sendGap() {
	l.mu.Lock()
	s := l.store.Load()
	if l.gap.dropped == 0 || l.sending || s == nil {
		l.mu.Unlock()
		return
	}
	g := l.gap.record()
	l.gap = pending{}
	l.sending = true
	l.mu.Unlock()

	g.Replica, g.Incarnation = s.Replica()
	g.Sequence = s.NextSequence()
	b, _ := proto.Marshal(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Gap{Gap: g}})
	l.produce(&kgo.Record{Key: []byte("replica/" + g.Replica), Value: b}, func(err error) {
		l.mu.Lock()
		l.sending = false
		if err != nil {
			l.gap.merge(g)
		} else {
			l.healthy = true
		}
		l.mu.Unlock()
		if err == nil {
			s.NoteGap(g)
			l.cfg.logger.Info("history: sharing resumed; the gap is recorded", "dropped", g.GetDropped(),
				"first_dropped", g.GetFirstDropped().AsTime(), "last_dropped", g.GetLastDropped().AsTime(), "reason", g.GetReason())
		}
	})
}

var _ history.Publisher = (*Log)(nil)
