package kafkalog

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/internal/bus"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
)

const meterName = "github.com/assignd/assignd/server/history/kafkalog"

// Kind is the bus kind of the history's records: an
// assignd.v1.HistoryRecord, a decision keyed by its group id or a gap
// keyed "replica/" and its replica.
const Kind = "history"

// Log is one replica's end of the shared history: a [history.Publisher]
// producing to the bus and a subscriber applying its records to a Store.
type Log struct {
	cfg   config
	bus   *bus.Bus
	store atomic.Pointer[history.Store]
	// queue holds the records Publish handed over, for pump to marshal
	// and produce off the Assign path.
	queue chan published

	dropped, produced metric.Int64Counter

	mu      sync.Mutex
	gap     pending
	sending bool // a gap record is in flight
	healthy bool // the last record was delivered

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// published is a record Publish took.
type published struct {
	d     *assigndv1.Decision
	input []byte
}

// New returns a Log sharing the history through b, queueing as many
// records as b buffers.
func New(b *bus.Bus, opts ...Option) (*Log, error) {
	cfg := defaults()
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.gapRetry <= 0 {
		return nil, errors.New("kafkalog: the gap retry must be positive")
	}
	l := &Log{cfg: cfg, bus: b, queue: make(chan published, b.Buffer()), healthy: true}
	m := b.MeterProvider().Meter(meterName)
	var err error
	if l.dropped, err = m.Int64Counter("assignd.history.records.dropped", metric.WithUnit("{record}"),
		metric.WithDescription("History records this replica could not share through Kafka: its buffer was full, or Kafka did not take them in time.")); err != nil {
		return nil, err
	}
	if l.produced, err = m.Int64Counter("assignd.history.records.produced", metric.WithUnit("{record}"),
		metric.WithDescription("History records this replica shared through Kafka.")); err != nil {
		return nil, err
	}
	return l, nil
}

// Start subscribes s to the history's records, to be read from the
// topic's start, and starts sharing the records published; call it
// before the bus's Start. s is the Store that publishes through l
// (history.WithPublisher(l)).
func (l *Log) Start(s *history.Store) {
	l.store.Store(s)
	l.bus.Subscribe(Kind, func(r bus.Record) error {
		rec := new(assigndv1.HistoryRecord)
		if err := proto.Unmarshal(r.Value, rec); err != nil {
			return err
		}
		s.Apply(rec)
		return nil
	})
	l.ctx, l.cancel = context.WithCancel(context.Background())
	l.wg.Go(func() { l.pump(l.ctx) })
	l.wg.Go(func() { l.retryGaps(l.ctx) })
}

// Close hands the records queued to the bus; close the bus after it.
func (l *Log) Close() {
	if l.cancel != nil {
		l.cancel()
		l.wg.Wait()
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
		// gets through (retryGaps retries it every gapRetry) and shows
		// Kafka is back.
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
// the bus's cap and it is no shadow run, its input. The input is appended
// as field 3 to the decision's encoding (a valid HistoryRecord: fields
// may come in any order), so it is copied, not marshaled.
func (l *Log) send(p published) {
	limit := l.bus.MaxRecordBytes()
	b, err := proto.Marshal(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Decision{Decision: p.d}})
	if err == nil && !p.d.GetShadow() && p.input != nil && len(b)+len(p.input)+protowire.SizeTag(3)+protowire.SizeVarint(uint64(len(p.input))) <= limit {
		b = protowire.AppendTag(b, 3, protowire.BytesType)
		b = protowire.AppendBytes(b, p.input)
	}
	if err != nil || len(b) > limit {
		l.drop(p.d.GetGroupId(), fmt.Errorf("record of %d bytes over the cap of %d", len(b), limit))
		return
	}
	group := p.d.GetGroupId()
	l.bus.Produce(bus.Record{Kind: Kind, Key: []byte(group), Value: b}, func(err error) {
		if err != nil {
			l.fail()
			l.drop(group, err)
			return
		}
		l.delivered()
	})
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
		l.bus.Logger().Warn("history: records are not reaching Kafka; dropping them until it is back (Assign is unaffected)", "topic", l.bus.Topic())
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

// retryGaps shares a waiting gap every gapRetry, for when no decision
// comes to show that Kafka is back.
func (l *Log) retryGaps(ctx context.Context) {
	gaps := time.NewTicker(l.cfg.gapRetry)
	defer gaps.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-gaps.C:
			l.sendGap()
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
	l.bus.Produce(bus.Record{Kind: Kind, Key: []byte("replica/" + g.Replica), Value: b}, func(err error) {
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
			l.bus.Logger().Info("history: sharing resumed; the gap is recorded", "dropped", g.GetDropped(),
				"first_dropped", g.GetFirstDropped().AsTime(), "last_dropped", g.GetLastDropped().AsTime(), "reason", g.GetReason())
		}
	})
}

var _ history.Publisher = (*Log)(nil)
