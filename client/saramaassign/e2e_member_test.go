package saramaassign_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/IBM/sarama"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/saramaassign"
	"github.com/assignd/assignd/testbed/shimtest"
)

// kind is the strategy a member uses.
type kind int8

const (
	adapter kind = iota + 1 // saramaassign.New with its own assignd client
	native                  // sarama's own strategy of the same name
)

// member is one consumer process: a sarama consumer group that records its
// sessions and every record it consumes on the lab's timeline and marks
// what it consumed for commit.
type member struct {
	lab      *lab
	name     string
	kind     kind
	adapter  *saramaassign.Strategy // adapter members only
	assignd  *client.Client         // adapter members only
	group    sarama.ConsumerGroup
	cancel   context.CancelFunc
	consumed chan struct{} // closed when the Consume loop has returned

	errMu sync.Mutex
	errs  []error

	left bool // guarded by lab.mu
}

// start starts members called names (unique per incarnation) of the given
// kind and protocol, and waits for the group to settle.
func (l *lab) start(k kind, protocol string, names ...string) map[string][]tp {
	l.t.Helper()
	for _, n := range names {
		if _, err := l.startMember(n, k, protocol); err != nil {
			l.t.Fatal(err)
		}
	}
	return l.settle()
}

func (l *lab) startMember(name string, k kind, protocol string) (*member, error) {
	m := &member{lab: l, name: name, kind: k, consumed: make(chan struct{})}
	var strategy sarama.BalanceStrategy
	switch k {
	case adapter:
		ac, err := client.New(l.assignd.Addr(), client.WithReconnectBackoff(200*time.Millisecond))
		if err != nil {
			return nil, err
		}
		s, err := saramaassign.New(ac, protocol, saramaassign.WithGroupID(l.group), saramaassign.WithLogger(shimtest.Quiet),
			saramaassign.WithTimeout(time.Second),
			saramaassign.WithObserver(func(r saramaassign.Report) { l.tl.Led(name, r.Source.String()+" "+r.Reason, time.Now()) }))
		if err != nil {
			ac.Close()
			return nil, err
		}
		m.adapter, m.assignd, strategy = s, ac, s
	case native:
		strategy = &recording{BalanceStrategy: nativeStrategy(protocol), led: func() { l.tl.Led(name, "native", time.Now()) }}
	}
	g, err := sarama.NewConsumerGroup(l.seeds, l.group, saramaConfig(name, strategy))
	if err != nil {
		if m.assignd != nil {
			m.assignd.Close()
		}
		return nil, fmt.Errorf("member %s: %w", name, err)
	}
	m.group = g
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	l.mu.Lock()
	l.members = append(l.members, m)
	l.mu.Unlock()
	go m.consume(ctx)
	return m, nil
}

// saramaConfig is a consumer-group config with short timers, so that a
// rebalance takes a fraction of a second instead of several.
func saramaConfig(name string, s sarama.BalanceStrategy) *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.ClientID = name
	cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{s}
	cfg.Consumer.Group.Session.Timeout = 3 * time.Second
	cfg.Consumer.Group.Heartbeat.Interval = 100 * time.Millisecond
	cfg.Consumer.Group.Rebalance.Timeout = 5 * time.Second
	cfg.Consumer.Group.Rebalance.Retry.Backoff = 100 * time.Millisecond
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Offsets.AutoCommit.Interval = 100 * time.Millisecond
	cfg.Consumer.MaxWaitTime = 100 * time.Millisecond
	cfg.Consumer.Retry.Backoff = 100 * time.Millisecond
	cfg.Metadata.Retry.Backoff = 50 * time.Millisecond
	return cfg
}

func nativeStrategy(protocol string) sarama.BalanceStrategy {
	switch protocol {
	case sarama.StickyBalanceStrategyName:
		return sarama.NewBalanceStrategySticky()
	case sarama.RoundRobinBalanceStrategyName:
		return sarama.NewBalanceStrategyRoundRobin()
	}
	return sarama.NewBalanceStrategyRange()
}

// recording is a native strategy that notes when it plans as leader.
type recording struct {
	sarama.BalanceStrategy
	led func()
}

func (r *recording) Plan(members map[string]sarama.ConsumerGroupMemberMetadata, topics map[string][]int32) (sarama.BalanceStrategyPlan, error) {
	r.led()
	return r.BalanceStrategy.Plan(members, topics)
}

// consume runs sessions until ctx ends, as a sarama application does.
func (m *member) consume(ctx context.Context) {
	defer close(m.consumed)
	topics := slices.Sorted(maps.Keys(e2eTopics))
	for ctx.Err() == nil {
		if err := m.group.Consume(ctx, topics, m); err != nil && ctx.Err() == nil {
			m.errMu.Lock()
			m.errs = append(m.errs, err)
			m.errMu.Unlock()
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// errors returns what Consume returned so far.
func (m *member) errors() []error {
	m.errMu.Lock()
	defer m.errMu.Unlock()
	return slices.Clone(m.errs)
}

// Setup implements sarama.ConsumerGroupHandler.
func (m *member) Setup(s sarama.ConsumerGroupSession) error {
	m.lab.tl.SessionStarted(m.name, s.GenerationID(), flatten(s.Claims()), time.Now())
	return nil
}

// Cleanup implements sarama.ConsumerGroupHandler.
func (m *member) Cleanup(s sarama.ConsumerGroupSession) error {
	m.lab.tl.SessionEnded(m.name, s.GenerationID(), time.Now())
	return nil
}

// ConsumeClaim implements sarama.ConsumerGroupHandler.
func (m *member) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for {
		select {
		case msg, ok := <-c.Messages():
			if !ok {
				return nil
			}
			m.lab.tl.ConsumeClaimed(m.name, s.GenerationID(), tp{Topic: msg.Topic, Partition: msg.Partition}, msg.Offset, string(msg.Value), time.Now())
			s.MarkMessage(msg, "")
		case <-s.Context().Done():
			return nil
		}
	}
}

// leave shuts the member down gracefully: its session ends (committing
// what it marked) and it leaves the group; then the group settles.
func (l *lab) leave(name string) map[string][]tp {
	l.t.Helper()
	m := l.member(name)
	if err := m.leave(l.ctx); err != nil {
		l.t.Fatal(err)
	}
	return l.settle()
}

func (m *member) leave(ctx context.Context) error {
	m.lab.mu.Lock()
	m.left = true
	m.lab.mu.Unlock()
	done := make(chan error, 1)
	go func() {
		m.cancel()
		<-m.consumed
		err := m.group.Close()
		if m.assignd != nil {
			m.assignd.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, sarama.ErrClosedConsumerGroup) {
			return fmt.Errorf("member %s: closing: %w", m.name, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("member %s did not leave in time: %w", m.name, ctx.Err())
	}
}

// close tears the member down when the test ends.
func (m *member) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = m.leave(ctx)
}
