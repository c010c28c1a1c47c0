package kgoassign

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/internal/leadercall"
)

// Balancer is a kgo.GroupBalancer that takes its assignments from assignd
// and falls back to the same engine in-process. Create one per kgo client
// with CooperativeSticky, Sticky, Range, RoundRobin or New; several may
// share one client.Client. It is safe for concurrent use.
type Balancer struct {
	name     string
	assignor assign.Assignor
	// protocol is the rebalance protocol the group runs under this name,
	// sent to assignd and used by the fallback: COOPERATIVE for
	// cooperative-sticky, EAGER for the others, as in Kafka.
	protocol assign.RebalanceProtocol
	// sticky: the member's JoinGroup metadata carries its current
	// assignment as StickyMemberMetadata user data, as franz-go's sticky
	// balancers write it.
	sticky bool

	client *client.Client
	cfg    config
	lead   *leadercall.Leader
}

var _ kgo.GroupBalancer = (*Balancer)(nil)

// CooperativeSticky returns a "cooperative-sticky" balancer (KIP-429): the
// group rebalances cooperatively, members keep their partitions across a
// rebalance and give up only those the leader moves. c may be nil to
// assign in-process only.
func CooperativeSticky(c *client.Client, opts ...Option) *Balancer {
	return leadercall.Must(New(c, assign.NameCooperativeSticky, opts...))
}

// Sticky returns an eager "sticky" balancer (KIP-54).
func Sticky(c *client.Client, opts ...Option) *Balancer {
	return leadercall.Must(New(c, assign.NameSticky, opts...))
}

// Range returns an eager "range" balancer.
func Range(c *client.Client, opts ...Option) *Balancer {
	return leadercall.Must(New(c, assign.NameRange, opts...))
}

// RoundRobin returns an eager "roundrobin" balancer.
func RoundRobin(c *client.Client, opts ...Option) *Balancer {
	return leadercall.Must(New(c, assign.NameRoundRobin, opts...))
}

// New returns the balancer of a standard protocol name:
// "cooperative-sticky", "sticky", "range" or "roundrobin". c is the
// assignd client; nil assigns in-process only (every balance then counts
// as a fallback with reason NoClient), which is a way to switch assignd
// off without changing the group's protocol.
func New(c *client.Client, protocol string, opts ...Option) (*Balancer, error) {
	b := &Balancer{name: protocol, client: c, cfg: defaultConfig()}
	std, ok := assign.StandardOf(protocol)
	if !ok {
		return nil, fmt.Errorf("kgoassign: unknown protocol name %q: use %q, %q, %q or %q", protocol,
			assign.NameCooperativeSticky, assign.NameSticky, assign.NameRange, assign.NameRoundRobin)
	}
	// The balancer joins with the name's default rebalance protocol, and
	// the sticky names carry their previous assignment in user data.
	b.protocol, b.assignor = std.Protocols[0], std.Assignor
	b.sticky = protocol == assign.NameSticky || protocol == assign.NameCooperativeSticky
	for _, o := range opts {
		o.apply(&b.cfg)
	}
	lead, err := leadercall.NewLeader("kgoassign", b.cfg.Config)
	if err != nil {
		return nil, err
	}
	b.lead = lead
	return b, nil
}

// ProtocolName is the protocol name the balancer joins the group with.
func (b *Balancer) ProtocolName() string { return b.name }

// IsCooperative is true for cooperative-sticky only.
func (b *Balancer) IsCooperative() bool { return b.protocol == assign.Cooperative }

// MemberBalancer parses every member's metadata, as franz-go's native
// balancers do, and returns the balancer kgo calls when this member leads
// the group. It returns a *kgo.ConsumerBalancer so that kgo hands it the
// group id, generation, leader id and rack metadata before balancing.
func (b *Balancer) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	cb, err := kgo.NewConsumerBalancer(leading{b}, members)
	if err != nil {
		return nil, nil, fmt.Errorf("kgoassign: %w", err)
	}
	return cb, cb.MemberTopics(), nil
}

// leading adapts a Balancer to kgo.ConsumerBalancerBalance without giving
// Balancer itself a Balance method users could call out of context.
type leading struct{ b *Balancer }

func (l leading) Balance(cb *kgo.ConsumerBalancer, topics map[string]int32) kgo.IntoSyncAssignment {
	into, err := l.b.balance(cb, topics)
	if err != nil {
		cb.SetError(err)
		return nil
	}
	return into
}

// syncAssignments is a finished assignment, ready for SyncGroup.
type syncAssignments []kmsg.SyncGroupRequestGroupAssignment

func (s syncAssignments) IntoSyncAssignment() []kmsg.SyncGroupRequestGroupAssignment { return s }
