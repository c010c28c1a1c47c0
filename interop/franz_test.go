//go:build unix

package interop

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// heartbeat is the heartbeat interval of every member: kfake paces a
// rebalance by its members' heartbeats, so short ones keep tests fast.
const heartbeat = 150 * time.Millisecond

// rebalanceTimeout bounds how long the coordinator waits for members to
// rejoin; a rebalance ends as soon as all have, so it only matters when a
// member is stalled.
const rebalanceTimeout = 20 * time.Second

// franzMember is a franz-go group member that reports every callback and
// every record to a ledger. Its balancers decide whether it is a native
// member or a shim (kgoassign) member.
type franzMember struct {
	name string
	cl   *kgo.Client

	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	memberID string
}

// startFranz starts a member of group consuming topics from the start.
// OnPartitionsRevoked commits what was consumed before the partitions go,
// replacing kgo's default (which the custom callback disables).
func startFranz(t *testing.T, name string, brokers []string, group string, topics []string, led *ledger, balancers ...kgo.GroupBalancer) *franzMember {
	t.Helper()
	m := &franzMember{name: name, done: make(chan struct{})}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(brokers...),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topics...),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.Balancers(balancers...),
		kgo.SessionTimeout(sessionTimeout),
		kgo.HeartbeatInterval(heartbeat),
		kgo.RebalanceTimeout(rebalanceTimeout),
		kgo.FetchMaxWait(200*time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, cl *kgo.Client, assigned map[string][]int32) {
			at := time.Now()
			id, _ := cl.GroupMetadata()
			m.mu.Lock()
			m.memberID = id
			m.mu.Unlock()
			led.Assigned(name, setOfMap(assigned), at)
		}),
		kgo.OnPartitionsRevoked(func(ctx context.Context, cl *kgo.Client, revoked map[string][]int32) {
			_ = cl.CommitUncommittedOffsets(ctx)
			led.Revoked(name, setOfMap(revoked), time.Now(), "revoked")
		}),
		kgo.OnPartitionsLost(func(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
			led.Revoked(name, setOfMap(lost), time.Now(), "lost")
		}),
	)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	m.cl = cl
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go m.poll(ctx, led)
	t.Cleanup(m.stop)
	return m
}

func (m *franzMember) poll(ctx context.Context, led *ledger) {
	defer close(m.done)
	for ctx.Err() == nil {
		fs := m.cl.PollFetches(ctx)
		at := time.Now()
		fs.EachRecord(func(r *kgo.Record) {
			led.Consume(m.name, tp{Topic: r.Topic, Partition: r.Partition}, r.Offset, string(r.Value), at)
		})
	}
}

// stop leaves the group (revoking everything through the callback) and
// closes the client. Safe to call twice.
func (m *franzMember) stop() {
	m.cancel()
	<-m.done
	m.cl.Close()
}

// id returns the member id of its last assignment ("" before the first).
func (m *franzMember) id() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.memberID
}

// remembering wraps an eager sticky balancer so that its member reports
// its previous assignment when it rejoins, as the Java client's eager
// StickyAssignor does. franz-go v1.22.3 forgets it: an eager member revokes
// everything before rejoining and then hands the balancer an empty current
// assignment, so its StickyAssignorUserData names no partitions and no
// leader can keep them where they are. The wrapper keeps what SyncGroup
// last gave the member and passes it instead of the empty map; everything
// else is the wrapped balancer's.
type remembering struct {
	kgo.GroupBalancer

	mu   sync.Mutex
	last map[string][]int32
}

func (r *remembering) JoinGroupMetadata(topics []string, current map[string][]int32, generation int32) []byte {
	if len(current) == 0 {
		r.mu.Lock()
		current = r.last
		r.mu.Unlock()
	}
	return r.GroupBalancer.JoinGroupMetadata(topics, current, generation)
}

func (r *remembering) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	m, err := r.GroupBalancer.ParseSyncAssignment(assignment)
	if err == nil {
		last := make(map[string][]int32, len(m))
		for t, ps := range m {
			last[t] = slices.Sorted(slices.Values(ps))
		}
		r.mu.Lock()
		r.last = last
		r.mu.Unlock()
	}
	return m, err
}
