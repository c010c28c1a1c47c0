package grouplab

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
)

// Kind is the balancer a member uses.
type Kind uint8

const (
	// Shim members use kgoassign.CooperativeSticky with their own
	// connection to the lab's assignd.
	Shim Kind = iota + 1
	// Native members use franz-go's kgo.CooperativeStickyBalancer.
	Native
)

func (k Kind) String() string { return enumName("Kind", k, "shim", "native") }

type memberState uint8

const (
	memberLive memberState = iota
	memberLeaving
	memberLeft
	memberKilled
)

// Member is one consumer process: a franz-go group consumer that records
// its callbacks and every record it processes on the lab's timeline, and
// commits what it processed when partitions are revoked.
type Member struct {
	lab      *Lab
	name     string
	kind     Kind
	cl       *kgo.Client
	assignd  *client.Client
	balancer *kgoassign.Balancer
	net      *netCutter
	stopPoll context.CancelFunc
	polled   chan struct{}
	closed   chan struct{}

	mu    sync.Mutex
	st    memberState
	id    string
	owned map[TP]int   // partition → Seq of the EventAssigned that gave it
	next  map[TP]int64 // partition → offset after the last one processed this epoch
}

// MemberOption configures one member. Options are sealed: only this
// package defines them.
type MemberOption interface{ applyMember(*memberConfig) }

type memberConfig struct {
	protocols  []string
	instanceID string
	clientID   string
}

type memberOptionFunc func(*memberConfig)

func (f memberOptionFunc) applyMember(c *memberConfig) { f(c) }

// WithProtocols makes a Shim member offer these protocol names, in order
// of preference, each through the shim (kgoassign.New). The group runs
// the first name every member offers, and runs eager unless that is
// cooperative-sticky: one member offering only "sticky" among members
// offering "cooperative-sticky" and "sticky" downgrades the group to eager,
// as a KIP-429 upgrade done out of order does. Default: cooperative-sticky
// alone.
func WithProtocols(names ...string) MemberOption {
	return memberOptionFunc(func(c *memberConfig) { c.protocols = slices.Clone(names) })
}

// AsStatic makes the member a static member (KIP-345) with the given
// group.instance.id. An incarnation that comes back with the same id
// before the session timeout takes its predecessor's place: Kafka keeps
// the generation and hands it the same assignment, without a rebalance.
// Default: a dynamic member.
func AsStatic(instanceID string) MemberOption {
	return memberOptionFunc(func(c *memberConfig) { c.instanceID = instanceID })
}

// AsClient sets the member's client.id, which the coordinator puts before
// the member id it assigns ("clientID-UUID"): incarnations of one process
// (a restart, a flapping pod) share it. Default: the member's name.
func AsClient(clientID string) MemberOption {
	return memberOptionFunc(func(c *memberConfig) { c.clientID = clientID })
}

// StartMember starts a member called name (unique per incarnation, e.g.
// "m3" and, after a restart, "m3'") that joins the lab's group.
func (l *Lab) StartMember(name string, kind Kind, opts ...MemberOption) (*Member, error) {
	var mcfg memberConfig
	for _, o := range opts {
		o.applyMember(&mcfg)
	}
	l.mu.Lock()
	for _, m := range l.members {
		if m.name == name {
			l.mu.Unlock()
			return nil, fmt.Errorf("grouplab: a member called %q already exists", name)
		}
	}
	l.mu.Unlock()
	if mcfg.clientID == "" {
		mcfg.clientID = name
	}

	m := &Member{lab: l, name: name, kind: kind, net: newNetCutter(), polled: make(chan struct{}), closed: make(chan struct{}),
		owned: map[TP]int{}, next: map[TP]int64{}}
	var balancers []kgo.GroupBalancer // in order of preference
	switch kind {
	case Shim:
		ac, err := client.New(l.assignd.Addr(), client.WithTimeout(l.cfg.shimTimeout), client.WithReconnectBackoff(time.Second))
		if err != nil {
			return nil, fmt.Errorf("grouplab: member %s: %w", name, err)
		}
		m.assignd = ac
		bopts := []kgoassign.Option{kgoassign.WithLogger(l.cfg.logger.With("member", name)),
			kgoassign.WithMeterProvider(l.cfg.meters),
			kgoassign.WithObserver(m.balanced)}
		if len(mcfg.protocols) == 0 {
			m.balancer = kgoassign.CooperativeSticky(ac, bopts...)
			balancers = []kgo.GroupBalancer{m.balancer}
			break
		}
		for _, p := range mcfg.protocols {
			b, err := kgoassign.New(ac, p, bopts...)
			if err != nil {
				ac.Close()
				return nil, fmt.Errorf("grouplab: member %s: %w", name, err)
			}
			if m.balancer == nil {
				m.balancer = b
			}
			balancers = append(balancers, b)
		}
	case Native:
		balancers = []kgo.GroupBalancer{kgo.CooperativeStickyBalancer()}
	default:
		return nil, fmt.Errorf("grouplab: unknown member kind %d", kind)
	}

	topics := make([]string, len(l.topics))
	for i, t := range l.topics {
		topics[i] = t.Name
	}
	l.tl.add(Event{Kind: EventStarted, Member: name, Generation: -1, Detail: kind.String()})
	kopts := []kgo.Opt{
		kgo.SeedBrokers(l.seeds...),
		kgo.ClientID(mcfg.clientID),
		kgo.Dialer(m.net.dial),
		kgo.ConsumerGroup(l.group),
		kgo.ConsumeTopics(topics...),
		kgo.Balancers(balancers...),
		kgo.SessionTimeout(l.cfg.session),
		kgo.HeartbeatInterval(l.cfg.heartbeat),
		kgo.RebalanceTimeout(l.cfg.rebalanceTimeout),
	}
	kopts = append(kopts, ProcessThenCommit(100*time.Millisecond, m.assigned, m.revoked, m.lost)...)
	if mcfg.instanceID != "" {
		kopts = append(kopts, kgo.InstanceID(mcfg.instanceID))
	}
	cl, err := kgo.NewClient(kopts...)
	if err != nil {
		if m.assignd != nil {
			m.assignd.Close()
		}
		return nil, fmt.Errorf("grouplab: member %s: %w", name, err)
	}
	m.cl = cl
	l.mu.Lock()
	l.members = append(l.members, m)
	l.mu.Unlock()

	ctx, cancel := context.WithCancel(context.Background())
	m.stopPoll = cancel
	go m.poll(ctx)
	return m, nil
}

// Name is the member's name.
func (m *Member) Name() string { return m.name }

// Kind is the member's balancer kind.
func (m *Member) Kind() Kind { return m.kind }

// Balancer is a shim member's balancer (nil for native members).
func (m *Member) Balancer() *kgoassign.Balancer { return m.balancer }

// Client is the member's franz-go client.
func (m *Member) Client() *kgo.Client { return m.cl }

func (m *Member) state() memberState {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.st
}

// Leave shuts the member down gracefully: it stops processing, commits,
// revokes everything and leaves the group (kgo's Close), bounded by ctx.
func (m *Member) Leave(ctx context.Context) error {
	m.mu.Lock()
	if m.st != memberLive {
		m.mu.Unlock()
		return fmt.Errorf("grouplab: member %s is not running", m.name)
	}
	m.st = memberLeaving
	m.mu.Unlock()
	m.lab.tl.add(Event{Kind: EventLeaving, Member: m.name, MemberID: m.memberID(), Generation: -1})
	m.stopPoll()
	<-m.polled
	go func() {
		defer close(m.closed)
		m.cl.CloseAllowingRebalance()
		if m.assignd != nil {
			m.assignd.Close()
		}
	}()
	select {
	case <-m.closed:
	case <-ctx.Done():
		return fmt.Errorf("grouplab: member %s did not leave in time: %w", m.name, ctx.Err())
	}
	m.mu.Lock()
	m.st = memberLeft
	m.mu.Unlock()
	return nil
}

// Kill ends the member as a crash would: from this instant it processes
// nothing and commits nothing, its connections are cut so it cannot leave
// the group, and the broker evicts it at its session timeout. Callbacks
// kgo still runs in the dying client are not recorded.
func (m *Member) Kill() {
	m.mu.Lock()
	if m.st != memberLive {
		m.mu.Unlock()
		return
	}
	m.st = memberKilled
	owned := slices.Collect(maps.Keys(m.owned))
	clear(m.owned)
	m.mu.Unlock()
	m.lab.tl.add(Event{Kind: EventKilled, Member: m.name, MemberID: m.memberID(), Generation: -1, Partitions: owned})
	m.net.cutAll()
	m.stopPoll()
	go func() {
		defer close(m.closed)
		<-m.polled
		canceled, cancel := context.WithCancel(context.Background())
		cancel()
		_ = m.cl.LeaveGroupContext(canceled) // sends nothing: the network is cut and ctx is done
		m.cl.Close()
		if m.assignd != nil {
			m.assignd.Close()
		}
	}()
}

// close tears the member down for Lab.Close, without a graceful leave.
func (m *Member) close() {
	m.mu.Lock()
	live := m.st == memberLive
	if live {
		m.st = memberKilled
	}
	m.mu.Unlock()
	if live {
		m.net.cutAll()
		m.stopPoll()
		go func() {
			defer close(m.closed)
			<-m.polled
			m.cl.Close()
			if m.assignd != nil {
				m.assignd.Close()
			}
		}()
	}
	select {
	case <-m.closed:
	case <-time.After(5 * time.Second):
	}
}

func (m *Member) memberID() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.id
}

// poll processes records until ctx ends: each record is recorded as
// consumed under the member's current ownership epoch, then marked for
// commit, then rebalances are allowed again.
func (m *Member) poll(ctx context.Context) {
	defer close(m.polled)
	defer m.cl.AllowRebalance()
	for {
		fs := m.cl.PollRecords(ctx, 1000)
		if ctx.Err() != nil {
			return
		}
		var batch []*kgo.Record
		m.mu.Lock()
		if m.st == memberKilled {
			m.mu.Unlock()
			return
		}
		fs.EachRecord(func(r *kgo.Record) {
			tp := TP{Topic: r.Topic, Partition: r.Partition}
			m.lab.tl.consume(Offset{tp, r.Offset}, Consumption{Member: m.name, Epoch: m.owned[tp]})
			m.next[tp] = max(m.next[tp], r.Offset+1)
			batch = append(batch, r)
		})
		m.mu.Unlock()
		m.cl.MarkCommitRecords(batch...)
		m.cl.AllowRebalance()
		if errs := fs.Errors(); len(errs) > 0 && !errors.Is(errs[0].Err, kgo.ErrClientClosed) {
			m.lab.cfg.logger.Warn("grouplab: fetch error", "member", m.name, "error", errs[0].Err)
		}
	}
}

func (m *Member) assigned(_ context.Context, cl *kgo.Client, assigned map[string][]int32) {
	id, gen := cl.GroupMetadata()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.st == memberKilled {
		return
	}
	m.id = id
	tps := flatten(assigned)
	seq := m.lab.tl.add(Event{Kind: EventAssigned, Member: m.name, MemberID: id, Generation: gen, Partitions: tps})
	for _, tp := range tps {
		m.owned[tp] = seq
		m.next[tp] = 0
	}
}

// revoked commits everything processed (kgo's default revoke would, but
// a custom OnPartitionsRevoked replaces it), then records the revocation
// and, per partition, the offset the ending ownership committed through.
func (m *Member) revoked(ctx context.Context, cl *kgo.Client, revoked map[string][]int32) {
	if m.state() == memberKilled {
		return
	}
	err := cl.CommitMarkedOffsets(ctx)
	_, gen := cl.GroupMetadata()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.st == memberKilled {
		return
	}
	tps := flatten(revoked)
	for _, tp := range tps {
		if err == nil {
			m.lab.tl.commit(m.owned[tp], tp, m.next[tp])
		}
		delete(m.owned, tp)
		delete(m.next, tp)
	}
	if len(tps) == 0 {
		return // kgo's end-of-session notice: nothing changes hands
	}
	detail := ""
	if err != nil {
		detail = "commit failed: " + err.Error()
	}
	m.lab.tl.add(Event{Kind: EventRevoked, Member: m.name, MemberID: m.id, Generation: gen, Partitions: tps, Detail: detail})
}

func (m *Member) lost(_ context.Context, cl *kgo.Client, lost map[string][]int32) {
	_, gen := cl.GroupMetadata()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.st == memberKilled {
		return
	}
	tps := flatten(lost)
	for _, tp := range tps {
		delete(m.owned, tp)
		delete(m.next, tp)
	}
	m.lab.tl.add(Event{Kind: EventLost, Member: m.name, MemberID: m.id, Generation: gen, Partitions: tps})
}

// balanced records a shim leader's balance.
func (m *Member) balanced(r kgoassign.Report) {
	detail := r.Source.String()
	if r.Reason != "" {
		detail += " (" + r.Reason + ")"
	}
	if r.FollowupRequired {
		detail += ", follow-up required"
	}
	m.lab.tl.add(Event{Kind: EventBalanced, Member: m.name, MemberID: r.Leader, Generation: r.Generation, Detail: detail})
}

// Callback is what kgo calls when a member is given partitions, gives
// them up or loses them.
type Callback = func(context.Context, *kgo.Client, map[string][]int32)

// ProcessThenCommit are the consumer options of a member that processes
// each record, then marks it, and commits only the marks, with no
// rebalance while a polled batch is being processed, so that what it
// committed was processed. Partitions nobody committed yet are read from
// the start, so that records produced before a partition's first owner
// are not skipped. fetchWait bounds a fetch's wait; assigned, revoked and
// lost record what changes hands.
func ProcessThenCommit(fetchWait time.Duration, assigned, revoked, lost Callback) []kgo.Opt {
	return []kgo.Opt{
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(fetchWait),
		kgo.BlockRebalanceOnPoll(),
		kgo.AutoCommitMarks(),
		kgo.AutoCommitInterval(500 * time.Millisecond),
		kgo.OnPartitionsAssigned(assigned),
		kgo.OnPartitionsRevoked(revoked),
		kgo.OnPartitionsLost(lost),
	}
}

func flatten(m map[string][]int32) []TP {
	var out []TP
	for t, ps := range m {
		for _, p := range ps {
			out = append(out, TP{Topic: t, Partition: p})
		}
	}
	return out
}
