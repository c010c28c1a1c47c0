package saramaassign_test

import (
	"context"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/internal/grouplab"
	"github.com/assignd/assignd/internal/shimtest"
	"github.com/assignd/assignd/server"
)

// The end-to-end tests run real sarama consumer groups on kfake, franz-go's
// in-process Kafka-protocol broker, or with ASSIGND_BROKER=kafka on a real
// Apache Kafka broker (grouplab.StartBroker), with an in-process assignd
// and a producer writing all along. Everything listens on 127.0.0.1.

// e2eTopics: 12 + 4 partitions.
var e2eTopics = map[string]int32{"orders": 12, "audit": 4}

// quietPeriod is how long the group must show no session change to count
// as settled: several heartbeats (100 ms), so that a pending rebalance
// would have shown.
const quietPeriod = 600 * time.Millisecond

type tp struct {
	topic     string
	partition int32
}

func (x tp) String() string { return fmt.Sprintf("%s/%d", x.topic, x.partition) }

// lab is one broker, one restartable assignd, one consumer group of sarama
// members, a producer and the timeline they all write.
type lab struct {
	t       *testing.T
	ctx     context.Context
	broker  *grouplab.Broker
	seeds   []string
	group   string // the consumer group's name on the broker
	assignd *assigndProc
	tl      *timeline
	prod    *producer

	mu      sync.Mutex
	members []*member // every member ever started, in start order
}

// startLab starts a lab bounded (with everything the test does) by
// budget, and stops it when the test ends.
func startLab(t *testing.T, budget time.Duration) *lab {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test against a Kafka broker")
	}
	kind, err := grouplab.BrokerFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	var topics []grouplab.Topic
	for name, n := range e2eTopics {
		topics = append(topics, grouplab.Topic{Name: name, Partitions: n})
	}
	// The real broker's first start is not the test's budget.
	bctx, bcancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer bcancel()
	broker, err := grouplab.StartBroker(bctx, kind, topics)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	t.Cleanup(cancel)
	l := &lab{t: t, ctx: ctx, broker: broker, seeds: broker.Seeds(), group: broker.Group("lab"), assignd: &assigndProc{}, tl: newTimeline()}
	t.Cleanup(l.close)
	t.Cleanup(func() {
		if log := broker.LogTail(100); t.Failed() && log != "" {
			t.Logf("the Kafka broker's log, last 100 lines:\n%s", log)
		}
	})
	if err := l.assignd.start(); err != nil {
		t.Fatal(err)
	}
	l.prod, err = startProducer(l.seeds, l.tl)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *lab) close() {
	for _, m := range l.live() {
		m.close()
	}
	l.prod.stop(context.Background())
	l.assignd.stop()
	l.broker.Close()
}

// live returns the members that have not left.
func (l *lab) live() []*member {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*member
	for _, m := range l.members {
		if !m.left {
			out = append(out, m)
		}
	}
	return out
}

func (l *lab) member(name string) *member {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.members {
		if m.name == name {
			return m
		}
	}
	l.t.Fatalf("no member %s", name)
	return nil
}

// settle waits until every live member runs a session of one generation,
// their claims cover every partition exactly once, and nothing has changed
// for quietPeriod. It returns each member's claims.
func (l *lab) settle() map[string][]tp {
	l.t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var why string
	for {
		var claims map[string][]tp
		claims, why = l.settled()
		if why == "" {
			return claims
		}
		select {
		case <-l.ctx.Done():
			l.t.Fatalf("the group did not settle: %s\n%s", why, l.tl.dump())
		case <-tick.C:
		}
	}
}

// settled returns the live members' claims, or why the group is not
// settled yet.
func (l *lab) settled() (map[string][]tp, string) {
	live := l.live()
	sessions, last := l.tl.sessions()
	if since := time.Since(last); since < quietPeriod {
		return nil, fmt.Sprintf("last session change %s ago", since)
	}
	claims := make(map[string][]tp, len(live))
	owner := map[tp]string{}
	gen := int32(-1)
	for _, m := range live {
		s, ok := sessions[m.name]
		switch {
		case !ok:
			return nil, fmt.Sprintf("%s has no session", m.name)
		case gen >= 0 && s.gen != gen:
			return nil, fmt.Sprintf("%s is in generation %d, not %d", m.name, s.gen, gen)
		}
		gen = s.gen
		for _, x := range s.claims {
			if o, dup := owner[x]; dup {
				return nil, fmt.Sprintf("%s is claimed by %s and %s", x, o, m.name)
			}
			owner[x] = m.name
		}
		claims[m.name] = s.claims
	}
	for name, n := range e2eTopics {
		for p := range n {
			if _, ok := owner[tp{name, p}]; !ok {
				return nil, fmt.Sprintf("%s is claimed by nobody", tp{name, p})
			}
		}
	}
	return claims, ""
}

// finish stops producing, waits until every record produced was
// consumed, and checks the timeline: no partition was ever claimed by two
// members at once, and every record was consumed by a member that had
// claimed its partition at the time.
func (l *lab) finish() {
	l.t.Helper()
	if err := l.prod.stop(l.ctx); err != nil {
		l.t.Fatal(err)
	}
	for missing := l.tl.unconsumed(); missing > 0; missing = l.tl.unconsumed() {
		select {
		case <-l.ctx.Done():
			l.t.Fatalf("%d of %d records produced were never consumed\n%s", missing, l.tl.producedCount(), l.tl.dump())
		case <-time.After(50 * time.Millisecond):
		}
	}
	for _, p := range l.tl.problems() {
		l.t.Error(p)
	}
	if l.tl.producedCount() == 0 {
		l.t.Error("nothing was produced")
	}
	if os.Getenv("E2E_TIMELINE") != "" {
		l.t.Log("\n" + l.tl.dump())
	}
	l.t.Logf("%d records produced, %d consumed twice", l.tl.producedCount(), l.tl.duplicates())
}

// assigndProc is an in-process assignd with the default policy that can be
// stopped and started again on the same loopback address.
type assigndProc struct {
	addr string
	srv  *server.Server
	done chan error
}

func (a *assigndProc) start() error {
	addr := a.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening for assignd: %w", err)
	}
	srv, err := server.New(server.DefaultSelector(), shimtest.Quiet)
	if err != nil {
		lis.Close()
		return fmt.Errorf("creating assignd: %w", err)
	}
	a.addr, a.srv, a.done = lis.Addr().String(), srv, make(chan error, 1)
	go func(done chan<- error) { done <- srv.Serve(lis) }(a.done)
	return nil
}

func (a *assigndProc) stop() {
	if a.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = a.srv.Shutdown(ctx)
	<-a.done
	a.srv = nil
}

// producer writes one record every 5 ms, cycling through every partition,
// and records each acknowledged offset on the timeline.
type producer struct {
	cl     *kgo.Client
	cancel context.CancelFunc
	done   chan struct{}
}

func startProducer(seeds []string, tl *timeline) (*producer, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(0))
	if err != nil {
		return nil, err
	}
	var tps []tp
	for _, name := range slices.Sorted(maps.Keys(e2eTopics)) {
		for p := range e2eTopics[name] {
			tps = append(tps, tp{name, p})
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &producer{cl: cl, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for seq := 0; ; seq++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			x := tps[seq%len(tps)]
			// Not ctx: a record handed to the client is acknowledged or
			// fails on its own, never abandoned by the stop.
			cl.Produce(context.Background(), &kgo.Record{Topic: x.topic, Partition: x.partition, Value: []byte("v")},
				func(r *kgo.Record, err error) {
					if err == nil {
						tl.produced(tp{r.Topic, r.Partition}, r.Offset)
					}
				})
		}
	}()
	return p, nil
}

// stop ends production and waits for every record in flight.
func (p *producer) stop(ctx context.Context) error {
	if p.cancel == nil {
		return nil
	}
	p.cancel()
	<-p.done
	err := p.cl.Flush(ctx)
	p.cl.Close()
	p.cancel = nil
	return err
}

// flatten lists a claims map sorted.
func flatten(claims map[string][]int32) []tp {
	var out []tp
	for t, ps := range claims {
		for _, p := range ps {
			out = append(out, tp{t, p})
		}
	}
	slices.SortFunc(out, func(a, b tp) int {
		if c := strings.Compare(a.topic, b.topic); c != 0 {
			return c
		}
		return int(a.partition - b.partition)
	})
	return out
}
