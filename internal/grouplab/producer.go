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

// producer writes one record every interval, cycling through every
// partition of every topic, and records each acknowledged offset.
type producer struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}
	failed atomic.Int64

	mu      sync.Mutex
	lastErr error
}

// StartProducing starts producing continuously. It is an error to start
// twice.
func (l *Lab) StartProducing() error {
	if l.prod != nil {
		return errors.New("grouplab: already producing")
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(l.seeds...),
		kgo.ClientID("producer"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(0),
	)
	if err != nil {
		return fmt.Errorf("grouplab: producer: %w", err)
	}
	var tps []TP
	for _, t := range l.topics {
		for p := range t.Partitions {
			tps = append(tps, TP{t.Name, p})
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &producer{cl: cl, cancel: cancel, done: make(chan struct{})}
	l.prod = p
	go func() {
		defer close(p.done)
		tick := time.NewTicker(l.cfg.produceEvery)
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
				l.tl.produce(TP{r.Topic, r.Partition}, r.Offset)
			})
		}
	}()
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
	p.cancel()
	<-p.done
	flushErr := p.cl.Flush(ctx)
	p.cl.Close()
	if flushErr != nil {
		return fmt.Errorf("grouplab: flushing the producer: %w", flushErr)
	}
	if n := p.failed.Load(); n > 0 {
		p.mu.Lock()
		defer p.mu.Unlock()
		return fmt.Errorf("grouplab: %d records failed to produce, last: %w", n, p.lastErr)
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
