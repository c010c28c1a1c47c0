package saramaassign

import (
	"fmt"

	"github.com/IBM/sarama"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/internal/leadercall"
)

// Strategy is a sarama.BalanceStrategy for eager consumer groups that
// takes its plans from assignd and falls back to the same engine
// in-process. Create one with Range, RoundRobin, Sticky or New and put it
// in Consumer.Group.Rebalance.GroupStrategies; several strategies (and
// several sarama configs) may share one client.Client. It is safe for
// concurrent use.
type Strategy struct {
	name     string
	assignor assign.Assignor
	// sticky: members carry their previous assignment in the user data of
	// the assignment the leader sends them (sarama's echo of
	// StickyAssignorUserData), so AssignmentData must write it.
	sticky bool

	client *client.Client
	cfg    config
	lead   *leadercall.Leader
}

var (
	_ sarama.BalanceStrategy                  = (*Strategy)(nil)
	_ sarama.RebalanceProtocolBalanceStrategy = (*Strategy)(nil)
)

// Range returns a "range" strategy: per topic, contiguous partition
// ranges in member id order, as sarama's and Java's range assignors.
// c may be nil to assign in-process only.
func Range(c *client.Client, opts ...Option) *Strategy {
	return leadercall.Must(New(c, assign.NameRange, opts...))
}

// RoundRobin returns a "roundrobin" strategy.
func RoundRobin(c *client.Client, opts ...Option) *Strategy {
	return leadercall.Must(New(c, assign.NameRoundRobin, opts...))
}

// Sticky returns an eager "sticky" strategy (KIP-54): members keep as
// many of their partitions as balance allows across rebalances. Its user
// data is byte-compatible with sarama's own sticky strategy, so adapter
// and sarama-native "sticky" members can share a group.
func Sticky(c *client.Client, opts ...Option) *Strategy {
	return leadercall.Must(New(c, assign.NameSticky, opts...))
}

// New returns the strategy of an eager protocol name: "range",
// "roundrobin" or "sticky" (sarama's RangeBalanceStrategyName,
// RoundRobinBalanceStrategyName and StickyBalanceStrategyName). c is the
// assignd client; nil assigns in-process only (every plan then counts as
// a fallback with reason NoClient), which switches assignd off without
// changing the group's protocol.
func New(c *client.Client, protocol string, opts ...Option) (*Strategy, error) {
	s := &Strategy{name: protocol, client: c, cfg: defaultConfig()}
	std, ok := assign.StandardOf(protocol)
	if !ok || std.Allows(assign.Cooperative) {
		return nil, fmt.Errorf("saramaassign: unsupported protocol name %q: the adapter runs eager groups only: use %q, %q or %q",
			protocol, sarama.RangeBalanceStrategyName, sarama.RoundRobinBalanceStrategyName, sarama.StickyBalanceStrategyName)
	}
	s.assignor = std.Assignor
	s.sticky = protocol == sarama.StickyBalanceStrategyName
	for _, o := range opts {
		o.apply(&s.cfg)
	}
	var err error
	if s.lead, err = leadercall.NewLeader("saramaassign", s.cfg.Config); err != nil {
		return nil, err
	}
	return s, nil
}

// Name is the protocol name the member joins the group with.
func (s *Strategy) Name() string { return s.name }

// SupportedProtocols declares the strategy eager-only, so that sarama
// runs the group eagerly even when a cooperative strategy is configured
// beside it.
func (s *Strategy) SupportedProtocols() []sarama.RebalanceProtocol {
	return []sarama.RebalanceProtocol{sarama.RebalanceProtocolEager}
}
