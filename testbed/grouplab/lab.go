package grouplab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	"google.golang.org/grpc"
)

// Topic is a topic the lab creates and every member consumes.
type Topic struct {
	Name       string
	Partitions int32
}

// Lab is one broker, one assignd, one consumer group and its producer.
type Lab struct {
	cfg     config
	topics  []Topic
	broker  *Broker
	group   string // the consumer group's name on the broker
	seeds   []string
	tl      *Timeline
	assignd *Assignd
	prod    *Producer

	mu      sync.Mutex
	members []*Member // every incarnation ever started, in start order
}

// New starts a broker on 127.0.0.1 with the given topics (kfake, or the
// real broker [WithBroker] or $ASSIGND_BROKER selects), and an in-process
// assignd with the default policy. Close stops everything.
func New(topics []Topic, opts ...Option) (*Lab, error) {
	if len(topics) == 0 {
		return nil, errors.New("grouplab: no topics")
	}
	cfg := defaultConfig()
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.broker == 0 {
		kind, err := BrokerFromEnv()
		if err != nil {
			return nil, err
		}
		cfg.broker = kind
	}
	ctx, cancel := context.WithTimeout(context.Background(), cfg.brokerStart)
	defer cancel()
	b, err := StartBroker(ctx, cfg.broker, topics)
	if err != nil {
		return nil, err
	}
	l := &Lab{cfg: cfg, topics: slices.Clone(topics), broker: b, group: b.Group(cfg.group), seeds: b.Seeds(), tl: newTimeline()}
	l.observeLeaders()
	if l.assignd, err = startAssignd(cfg.logger, cfg.selector, cfg.assigndOptions...); err != nil {
		b.Close()
		return nil, err
	}
	l.tl.add(Event{Kind: EventAssigndUp, Generation: -1, Detail: l.assignd.Addr()})
	return l, nil
}

// Broker is the lab's broker.
func (l *Lab) Broker() *Broker { return l.broker }

// Timeline is the lab's record.
func (l *Lab) Timeline() *Timeline { return l.tl }

// Topics are the lab's topics.
func (l *Lab) Topics() []Topic { return slices.Clone(l.topics) }

// AssigndAddr is assignd's loopback address; it stays the same across
// StopAssignd and StartAssignd.
func (l *Lab) AssigndAddr() string { return l.assignd.Addr() }

// StopAssignd shuts assignd down gracefully (bounded by ctx). Shim
// leaders fall back in-process until it is back.
func (l *Lab) StopAssignd(ctx context.Context) error {
	if err := l.assignd.Stop(ctx); err != nil {
		return err
	}
	l.tl.add(Event{Kind: EventAssigndDown, Generation: -1})
	return nil
}

// StartAssignd starts assignd again on the same address.
func (l *Lab) StartAssignd() error {
	if err := l.assignd.Start(); err != nil {
		return err
	}
	l.tl.add(Event{Kind: EventAssigndUp, Generation: -1, Detail: l.assignd.Addr()})
	return nil
}

// WaitAssignd waits until every running shim member's connection to
// assignd is up, e.g. after StartAssignd, so that the next balance goes to
// the service rather than to the fallback.
func (l *Lab) WaitAssignd(ctx context.Context) error {
	for _, m := range l.Live() {
		if m.assignd == nil {
			continue
		}
		// Each call is bounded by the client's own short timeout; the
		// reconnection backoff may be longer, so try until ctx ends.
		for {
			_, err := m.assignd.ListAssignors(ctx, grpc.WaitForReady(true))
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("grouplab: member %s cannot reach assignd: %w", m.name, err)
			}
		}
	}
	return nil
}

// Member returns the first incarnation of the member called name; t
// fails at once when there is none.
func (l *Lab) Member(t testing.TB, name string) *Member {
	t.Helper()
	for _, m := range l.Members() {
		if m.Name() == name {
			return m
		}
	}
	t.Fatalf("no member %s", name)
	return nil
}

// Members returns every member incarnation started so far.
func (l *Lab) Members() []*Member {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.members)
}

// Live returns the members that are running (started, neither leaving
// nor killed).
func (l *Lab) Live() []*Member {
	var out []*Member
	for _, m := range l.Members() {
		if m.state() == memberLive {
			out = append(out, m)
		}
	}
	return out
}

// Close stops the producer, every member (without waiting for graceful
// leaves), assignd and the broker.
func (l *Lab) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if l.prod != nil {
		_ = l.StopProducing(ctx)
	}
	for _, m := range l.Members() {
		m.close()
	}
	_ = l.assignd.Stop(ctx)
	l.broker.Close()
}

// observeLeaders records every SyncGroup that carries assignments: only a
// member that balanced as leader sends them. Real Kafka has one leader
// per generation; kfake tells every member it leads the generation after
// the leader left, and the last leader's SyncGroup wins, so the lab keeps
// them all to check that they agree.
func (l *Lab) observeLeaders() {
	l.broker.Observe(func(req kmsg.Request) {
		sg, ok := req.(*kmsg.SyncGroupRequest)
		if !ok || len(sg.GroupAssignment) == 0 || sg.Group != l.group {
			return
		}
		as := make(map[string][]byte, len(sg.GroupAssignment))
		for _, a := range sg.GroupAssignment {
			as[a.MemberID] = slices.Clone(a.MemberAssignment)
		}
		l.tl.add(Event{Kind: EventLeaderSync, MemberID: sg.MemberID, Generation: sg.Generation, Assignments: as})
	}, kmsg.SyncGroup)
}
