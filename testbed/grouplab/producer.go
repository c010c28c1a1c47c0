package grouplab

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Producer writes one record every interval, cycling through its
// partitions, and reports each acknowledged offset. A Lab runs one
// (StartProducing); harnesses of other clients start their own.
type Producer struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}
	failed atomic.Int64

	mu      sync.Mutex
	lastErr error
	stopped bool
}

// StartProducer starts producing to tps through the brokers at seeds, one
// record every interval (its value the record's sequence number), and
// calls acked with each record's partition and offset once the broker
// acknowledged it.
func StartProducer(seeds []string, tps []TP, every time.Duration, acked func(TP, int64)) (*Producer, error) {
	if len(tps) == 0 {
		return nil, errors.New("grouplab: a producer needs partitions")
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(seeds...),
		kgo.ClientID("producer"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(0),
	)
	if err != nil {
		return nil, fmt.Errorf("grouplab: producer: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Producer{cl: cl, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for seq := 0; ; seq++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			tp := tps[seq%len(tps)]
			r := &kgo.Record{Topic: tp.Topic, Partition: tp.Partition, Value: []byte(strconv.Itoa(seq))}
			// Not ctx: a record already handed to the client must be
			// acknowledged or fail on its own, never be abandoned by the stop.
			cl.Produce(context.Background(), r, func(r *kgo.Record, err error) {
				if err != nil {
					p.failed.Add(1)
					p.mu.Lock()
					p.lastErr = err
					p.mu.Unlock()
					return
				}
				acked(TP{Topic: r.Topic, Partition: r.Partition}, r.Offset)
			})
		}
	}()
	return p, nil
}

// Stop stops producing after everything produced so far is acknowledged
// or failed (bounded by ctx), and closes the client. Only the first call
// stops; later ones return nil.
func (p *Producer) Stop(ctx context.Context) error {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return nil
	}
	p.stopped = true
	p.mu.Unlock()
	p.cancel()
	<-p.done
	err := p.cl.Flush(ctx)
	p.cl.Close()
	if err != nil {
		return fmt.Errorf("grouplab: flushing the producer: %w", err)
	}
	return nil
}

// Failures is how many records failed to produce, and the last error.
func (p *Producer) Failures() (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed.Load(), p.lastErr
}

// StartProducing starts producing continuously to every partition of the
// lab's topics, recording each acknowledged offset on the timeline. It is
// an error to start twice.
func (l *Lab) StartProducing() error {
	if l.prod != nil {
		return errors.New("grouplab: already producing")
	}
	var tps []TP
	for _, t := range l.topics {
		for p := range t.Partitions {
			tps = append(tps, TP{Topic: t.Name, Partition: p})
		}
	}
	p, err := StartProducer(l.seeds, tps, l.cfg.produceEvery, l.tl.produce)
	if err != nil {
		return err
	}
	l.prod = p
	return nil
}

// StopProducing stops the producer after everything produced so far is
// acknowledged (bounded by ctx). It reports produce failures.
func (l *Lab) StopProducing(ctx context.Context) error {
	p := l.prod
	if p == nil {
		return nil
	}
	l.prod = nil
	if err := p.Stop(ctx); err != nil {
		return err
	}
	if n, err := p.Failures(); n > 0 {
		return fmt.Errorf("grouplab: %d records failed to produce, last: %w", n, err)
	}
	return nil
}

// Drain waits until every produced record was consumed by some member.
func (l *Lab) Drain(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		n := l.tl.unconsumed()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("grouplab: %d produced records still unconsumed: %w", n, ctx.Err())
		case <-tick.C:
		}
	}
}
