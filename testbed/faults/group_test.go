package faults

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	"github.com/assignd/assignd/testbed/grouplab"
)

// group is one consumer group of franz-go members: shim members plan
// through assignd (kgoassign.CooperativeSticky, one client each, round
// robin over the replicas), native ones with kgo.CooperativeStickyBalancer.
// Its ledger records what every member owns and consumes: a partition
// given to one member while another owns it, or a record consumed from a
// partition its member does not own, is a violation.
type group struct {
	name   string
	shim   bool
	env    *env
	ledger *grouplab.Ledger

	mu       sync.Mutex
	live     []*member
	started  int
	balances []balance
	// onBalance, when set, runs on the leader's group goroutine after a
	// shim leader planned and before it sends SyncGroup.
	onBalance atomic.Pointer[func(kgoassign.Report)]
}

// balance is one plan a shim leader made.
type balance struct {
	at     time.Time
	source client.BalanceSource
	reason string
}

type member struct {
	name   string
	g      *group
	cl     *kgo.Client
	ac     *client.Client
	cancel context.CancelFunc
	polled chan struct{}
}

func (g *group) kind() string {
	if g.shim {
		return "assignd"
	}
	return "built-in"
}

// add starts a member, which joins the group.
func (g *group) add() error {
	g.mu.Lock()
	g.started++
	name := fmt.Sprintf("%s-m%d", g.name, g.started)
	g.mu.Unlock()
	m := &member{name: name, g: g, polled: make(chan struct{})}
	balancer := kgo.GroupBalancer(kgo.CooperativeStickyBalancer())
	if g.shim {
		ac, err := g.env.calls.newClient(g.env.replicaAddrs)
		if err != nil {
			return err
		}
		m.ac = ac
		balancer = kgoassign.CooperativeSticky(ac,
			kgoassign.WithLogger(g.env.log.With("member", name)),
			kgoassign.WithObserver(g.balanced))
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{
		kgo.SeedBrokers(g.env.cluster.Seeds()...),
		kgo.ClientID(name),
		kgo.ConsumerGroup(g.name),
		kgo.ConsumeTopics(g.env.topic),
		kgo.Balancers(balancer),
		// A session long enough to outlast the coordinator's failover
		// (the controller fences a dead node after 9 s, then the group
		// is loaded on a new leader), as Kafka's 45 s default does: a
		// member evicted meanwhile would still own its partitions when
		// they are given to others, until it learns that it was.
		kgo.SessionTimeout(20 * time.Second),
		kgo.HeartbeatInterval(300 * time.Millisecond),
		kgo.RebalanceTimeout(20 * time.Second),
	}, grouplab.ProcessThenCommit(200*time.Millisecond, m.assigned, m.revoked, m.lost)...)...)
	if err != nil {
		if m.ac != nil {
			m.ac.Close()
		}
		return err
	}
	m.cl = cl
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	g.mu.Lock()
	g.live = append(g.live, m)
	g.mu.Unlock()
	go m.poll(ctx)
	return nil
}

// leave shuts the newest member down gracefully: it commits, revokes
// everything and leaves the group.
func (g *group) leave(ctx context.Context) error {
	g.mu.Lock()
	if len(g.live) == 0 {
		g.mu.Unlock()
		return errors.New("no member to leave")
	}
	m := g.live[len(g.live)-1]
	g.live = g.live[:len(g.live)-1]
	g.mu.Unlock()
	return m.close(ctx)
}

// closeAll stops every member, bounded by ctx.
func (g *group) closeAll(ctx context.Context) {
	g.mu.Lock()
	ms := g.live
	g.live = nil
	g.mu.Unlock()
	var wg sync.WaitGroup
	for _, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = m.close(ctx)
		}()
	}
	wg.Wait()
}

func (m *member) close(ctx context.Context) error {
	m.cancel()
	<-m.polled
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.cl.CloseAllowingRebalance()
		if m.ac != nil {
			m.ac.Close()
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("member %s did not leave in time: %w", m.name, ctx.Err())
	}
	m.g.ledger.RevokedAll(m.name, time.Now(), "revoked")
	return nil
}

func (m *member) poll(ctx context.Context) {
	defer close(m.polled)
	defer m.cl.AllowRebalance()
	for {
		fs := m.cl.PollRecords(ctx, 500)
		if ctx.Err() != nil {
			return
		}
		_, gen := m.cl.GroupMetadata()
		now := time.Now()
		fs.EachRecord(func(r *kgo.Record) {
			m.g.ledger.ConsumeClaimed(m.name, gen, grouplab.TP{Topic: r.Topic, Partition: r.Partition}, r.Offset, string(r.Value), now)
		})
		m.cl.MarkCommitRecords(fs.Records()...)
		m.cl.AllowRebalance()
	}
}

func (m *member) assigned(_ context.Context, _ *kgo.Client, tps map[string][]int32) {
	m.g.ledger.Assigned(m.name, setOf(tps), time.Now())
}

// revoked commits what the member processed before it gives the
// partitions up (a custom OnPartitionsRevoked replaces kgo's commit).
// The commit is bounded well inside the session: the callback holds up
// the member's rejoin, and a commit to a dead coordinator retries.
func (m *member) revoked(ctx context.Context, cl *kgo.Client, tps map[string][]int32) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := cl.CommitMarkedOffsets(ctx); err != nil {
		m.g.env.log.Warn("commit on revoke failed", "member", m.name, "error", err)
	}
	m.g.ledger.Revoked(m.name, setOf(tps), time.Now(), "revoked")
}

func (m *member) lost(_ context.Context, _ *kgo.Client, tps map[string][]int32) {
	m.g.ledger.Revoked(m.name, setOf(tps), time.Now(), "lost")
}

// balanced records a shim leader's plan and runs the hook, if any.
func (g *group) balanced(r kgoassign.Report) {
	g.mu.Lock()
	g.balances = append(g.balances, balance{at: time.Now(), source: r.Source, reason: r.Reason})
	g.mu.Unlock()
	detail := r.Source.String()
	if r.Reason != "" {
		detail += " (" + r.Reason + ")"
	}
	g.ledger.Led(r.Leader, detail, time.Now())
	if fn := g.onBalance.Load(); fn != nil {
		(*fn)(r)
	}
}

// balancesSince returns the shim leaders' plans made at or after t.
func (g *group) balancesSince(t time.Time) []balance {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []balance
	for _, b := range g.balances {
		if !b.at.Before(t) {
			out = append(out, b)
		}
	}
	return out
}

func (g *group) liveNames() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for _, m := range g.live {
		out = append(out, m.name)
	}
	return out
}

// settle waits until the group is at rest: its running members own every
// partition between them, evenly (within one), and nothing changed hands
// for quiet. It returns how long after since the last change came: the
// time the rebalance took.
func (g *group) settle(ctx context.Context, since time.Time, quiet time.Duration) (time.Duration, error) {
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		why := g.unsettled(quiet)
		if why == "" {
			_, last := g.ledger.Sessions()
			return max(0, last.Sub(since)), nil
		}
		select {
		case <-ctx.Done():
			return 0, fmt.Errorf("group %s did not settle (%s): %w", g.name, why, ctx.Err())
		case <-tick.C:
		}
	}
}

func (g *group) unsettled(quiet time.Duration) string {
	names := g.liveNames()
	if !g.ledger.Covers(g.env.partitions, names) {
		return fmt.Sprintf("the running members %v do not own every partition: %v", names, g.ledger.Counts())
	}
	counts := g.ledger.Counts()
	lo, hi := len(g.env.partitions), 0
	for _, n := range names {
		lo, hi = min(lo, counts[n]), max(hi, counts[n])
	}
	if hi-lo > 1 {
		return fmt.Sprintf("uneven: %v", counts)
	}
	if _, last := g.ledger.Sessions(); time.Since(last) < quiet {
		return "changed " + time.Since(last).Round(time.Millisecond).String() + " ago"
	}
	return ""
}

func setOf(m map[string][]int32) grouplab.TPSet {
	s := grouplab.TPSet{}
	for t, ps := range m {
		for _, p := range ps {
			s[grouplab.TP{Topic: t, Partition: p}] = struct{}{}
		}
	}
	return s
}

// quietLogger discards records below warnings.
func quietLogger(w interface{ Write([]byte) (int, error) }) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
