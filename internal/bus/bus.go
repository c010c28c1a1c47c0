package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/internal/kafkaconn"
)

const meterName = "github.com/assignd/assignd/internal/bus"

// KindHeader is the Kafka header that holds a record's kind.
const KindHeader = "assignd-kind"

// Record is one record of the topic.
type Record struct {
	// Kind names what Value holds; its owner decodes it.
	Kind string
	// Key places the record: records of one key share a partition, so
	// every replica reads them in one order.
	Key []byte
	// Value is the owner's encoding.
	Value []byte
	// Time is the record's Kafka timestamp, the same for every reader;
	// set on the records read, ignored on those produced.
	Time time.Time
}

// ErrTooLarge fails a record whose value is over the cap
// ([WithMaxRecordBytes]).
var ErrTooLarge = errors.New("bus: record over the cap")

// Bus is one replica's end of the shared topic.
type Bus struct {
	cfg config
	cl  *kgo.Client

	consumed, unknown, invalid metric.Int64Counter

	subsMu  sync.Mutex
	subs    map[string]func(Record) error
	started bool

	mu sync.Mutex
	// waiting counts the records handed to the client and not finished
	// (delivered or failed); progress is when one last finished, or when
	// the first of them was handed over.
	waiting  int
	progress time.Time

	closing atomic.Bool
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// New returns a Bus on the cluster of conn. It does not contact it:
// [Bus.Start] does, in the background.
func New(conn kafkaconn.Config, opts ...Option) (*Bus, error) {
	cfg := defaults()
	for _, o := range opts {
		o.apply(&cfg)
	}
	switch {
	case conn.Brokers == "":
		return nil, errors.New("bus: no brokers")
	case cfg.topic == "":
		return nil, errors.New("bus: empty topic name")
	case cfg.buffer < 1 || cfg.maxRecordBytes < 1024 || cfg.deliveryTimeout <= 0 || cfg.partitions < 1 || cfg.retention <= 0:
		return nil, errors.New("bus: buffer, partitions, retention and timeouts must be positive, the record cap at least 1 KiB")
	}
	copts, err := conn.Opts()
	if err != nil {
		return nil, fmt.Errorf("bus: %w", err)
	}
	kopts := []kgo.Opt{
		kgo.ClientID(cfg.clientID),
		kgo.DefaultProduceTopic(cfg.topic),
		kgo.MaxBufferedRecords(cfg.buffer),
		kgo.RecordDeliveryTimeout(cfg.deliveryTimeout),
		// Records carry their own identity where it matters (the history's
		// replica, incarnation and sequence) and the owners drop
		// duplicates, so the idempotent producer is not needed; without
		// it, aborting buffered records when Kafka stalls (watch) is safe,
		// and no IDEMPOTENT_WRITE ACL is asked for.
		kgo.DisableIdempotentWrite(),
		// A record is the cap plus its headers and the batch's overhead.
		kgo.ProducerBatchMaxBytes(int32(cfg.maxRecordBytes + 16<<10)),
		kgo.ProducerLinger(5 * time.Millisecond),
		// Find a broker that came back within a second, not the default
		// 5: records made meanwhile would fail.
		kgo.MetadataMinAge(time.Second),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxBytes(16 << 20),
	}
	cl, err := kgo.NewClient(append(append(copts, kopts...), cfg.kgo...)...)
	if err != nil {
		return nil, fmt.Errorf("bus: %w", err)
	}
	b := &Bus{cfg: cfg, cl: cl, subs: map[string]func(Record) error{}}
	m := cfg.meters.Meter(meterName)
	for _, c := range []struct {
		into       *metric.Int64Counter
		name, desc string
	}{
		{&b.consumed, "assignd.history.records.consumed", "Records read from the history topic, this replica's included."},
		{&b.unknown, "assignd.history.records.unknown", "Records of the history topic of a kind this replica does not read; skipped."},
		{&b.invalid, "assignd.history.records.invalid", "Records of the history topic that do not decode as their kind; skipped."},
	} {
		if *c.into, err = m.Int64Counter(c.name, metric.WithUnit("{record}"), metric.WithDescription(c.desc)); err != nil {
			cl.Close()
			return nil, err
		}
	}
	return b, nil
}

// MaxRecordBytes is the cap on a record's value ([WithMaxRecordBytes]).
func (b *Bus) MaxRecordBytes() int { return b.cfg.maxRecordBytes }

// Buffer is how many records may wait for Kafka ([WithBuffer]).
func (b *Bus) Buffer() int { return b.cfg.buffer }

// DeliveryTimeout is how long a record may wait for Kafka
// ([WithDeliveryTimeout]).
func (b *Bus) DeliveryTimeout() time.Duration { return b.cfg.deliveryTimeout }

// Logger is the Bus's logger ([WithLogger]), for its owners to log with.
func (b *Bus) Logger() *slog.Logger { return b.cfg.logger }

// MeterProvider is the Bus's meter provider ([WithMeterProvider]), for its
// owners to count with.
func (b *Bus) MeterProvider() metric.MeterProvider { return b.cfg.meters }

// Topic is the topic's name.
func (b *Bus) Topic() string { return b.cfg.topic }

// Subscribe passes every record of kind read to f, in each partition's
// order, on the consuming goroutine: f must not block for long. An error
// from f counts the record as invalid (assignd.history.records.invalid).
// Subscribe before [Bus.Start], one subscriber a kind: the topic is read
// from its start, and every subscriber gets every record of its kind.
func (b *Bus) Subscribe(kind string, f func(Record) error) {
	b.subsMu.Lock()
	defer b.subsMu.Unlock()
	switch {
	case b.started:
		panic("bus: Subscribe(" + kind + ") after Start")
	case b.subs[kind] != nil:
		panic("bus: a second subscriber to " + kind)
	}
	b.subs[kind] = f
}

// Start creates the topic if it is missing, then consumes it from its
// start into the subscribers, in the background until Close. Start
// returns at once: with Kafka unreachable, it keeps trying.
func (b *Bus) Start() {
	b.subsMu.Lock()
	b.started = true
	b.subsMu.Unlock()
	b.ctx, b.cancel = context.WithCancel(context.Background())
	b.wg.Go(func() { b.watch(b.ctx) })
	b.wg.Go(func() {
		if !b.ensureTopic(b.ctx) {
			return
		}
		b.cl.AddConsumeTopics(b.cfg.topic)
		b.consume(b.ctx)
	})
}

// Closing reports whether Close has begun.
func (b *Bus) Closing() bool { return b.closing.Load() }

// Close stops consuming, waits up to the delivery timeout for the records
// buffered, and closes the client. Stop the producers first.
func (b *Bus) Close() {
	b.closing.Store(true)
	if b.cancel != nil {
		b.cancel()
		b.wg.Wait()
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.deliveryTimeout)
	defer cancel()
	_ = b.cl.Flush(ctx) // what is not delivered by now fails
	b.cl.Close()
}

// Produce hands r to the client without blocking; done, if not nil, is
// called once with the outcome (nil: Kafka took it), maybe before Produce
// returns. done runs on the client's goroutine and must not produce.
func (b *Bus) Produce(r Record, done func(error)) {
	if done == nil {
		done = func(error) {}
	}
	if len(r.Value) > b.cfg.maxRecordBytes {
		done(fmt.Errorf("%w: %d bytes, the cap is %d", ErrTooLarge, len(r.Value), b.cfg.maxRecordBytes))
		return
	}
	b.mu.Lock()
	if b.waiting == 0 {
		b.progress = time.Now()
	}
	b.waiting++
	b.mu.Unlock()
	kr := &kgo.Record{Key: r.Key, Value: r.Value, Headers: []kgo.RecordHeader{{Key: KindHeader, Value: []byte(r.Kind)}}}
	b.cl.TryProduce(context.Background(), kr, func(_ *kgo.Record, err error) {
		b.mu.Lock()
		b.waiting--
		b.progress = time.Now()
		b.mu.Unlock()
		done(err)
	})
}

// ensureTopic creates the topic unless it exists, retrying while Kafka is
// unreachable. It reports false when ctx ended first.
func (b *Bus) ensureTopic(ctx context.Context) bool {
	adm := kadm.NewClient(b.cl)
	retention := strconv.FormatInt(b.cfg.retention.Milliseconds(), 10)
	// Retention deletes whole segments: roll them at an eighth of it so
	// that records go within about 1.125 times the retention.
	segment := strconv.FormatInt(max(b.cfg.retention.Milliseconds()/8, 60_000), 10)
	configs := map[string]*string{
		"cleanup.policy": kadm.StringPtr("delete"),
		"retention.ms":   &retention,
		"segment.ms":     &segment,
	}
	backoff := 250 * time.Millisecond
	for warned := false; ; {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		resp, err := adm.CreateTopic(rctx, b.cfg.partitions, b.cfg.replicationFactor, configs, b.cfg.topic)
		cancel()
		if err == nil {
			err = resp.Err
		}
		switch {
		case err == nil:
			b.cfg.logger.Info("history topic created", "topic", b.cfg.topic, "partitions", b.cfg.partitions,
				"retention", b.cfg.retention)
			return true
		case errors.Is(err, kerr.TopicAlreadyExists):
			return true
		case ctx.Err() != nil:
			return false
		case kerrNonRetriable(err):
			// Not allowed to create topics, say: the topic may exist all
			// the same, created by the operator.
			b.cfg.logger.Warn("cannot create the history topic; consuming it as it is", "topic", b.cfg.topic, "error", err)
			return true
		}
		if !warned {
			b.cfg.logger.Warn("history topic: Kafka unreachable; Assign is unaffected, retrying", "topic", b.cfg.topic, "error", err)
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

// consume hands every record of the topic to its kind's subscriber until
// ctx ends.
func (b *Bus) consume(ctx context.Context) {
	b.subsMu.Lock()
	subs := b.subs // read-only once started
	b.subsMu.Unlock()
	var lastErr time.Time
	for {
		fs := b.cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return
		}
		fs.EachError(func(topic string, p int32, err error) {
			if time.Since(lastErr) > time.Minute {
				lastErr = time.Now()
				b.cfg.logger.Warn("history topic: reading failed; retrying", "topic", topic, "partition", p, "error", err)
			}
		})
		var n, unknown, invalid int64
		fs.EachRecord(func(r *kgo.Record) {
			n++
			kind := kindOf(r)
			f := subs[kind]
			if f == nil {
				unknown++
				return
			}
			if err := f(Record{Kind: kind, Key: r.Key, Value: r.Value, Time: r.Timestamp}); err != nil {
				invalid++
			}
		})
		b.consumed.Add(ctx, n)
		if unknown > 0 {
			b.unknown.Add(ctx, unknown)
		}
		if invalid > 0 {
			b.invalid.Add(ctx, invalid)
		}
	}
}

// kindOf is r's kind, "" without one.
func kindOf(r *kgo.Record) string {
	for _, h := range r.Headers {
		if h.Key == KindHeader {
			return string(h.Value)
		}
	}
	return ""
}

// stalled reports whether records have waited a delivery timeout with
// none finishing: Kafka is unreachable.
func (b *Bus) stalled(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.waiting > 0 && now.Sub(b.progress) > b.cfg.deliveryTimeout
}

// watch fails the records buffered when Kafka has stalled for the
// delivery timeout. franz-go only checks a record's delivery timeout
// around a produce request, and with the broker unreachable no request
// is made: the buffer would stay full, and every record after it would
// fail.
func (b *Bus) watch(ctx context.Context) {
	stalls := time.NewTicker(max(b.cfg.deliveryTimeout/4, 10*time.Millisecond))
	defer stalls.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-stalls.C:
			if b.stalled(now) {
				// Safe without idempotence or transactions: the records
				// fail with ErrAborting.
				b.cl.UnsafeAbortBufferedRecords()
			}
		}
	}
}
