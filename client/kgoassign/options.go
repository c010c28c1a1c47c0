package kgoassign

import (
	"time"

	"github.com/assignd/assignd/client/internal/leadercall"
)

// Option configures a Balancer. Options are sealed: only this package
// defines them.
type Option interface{ apply(*config) }

type config struct {
	leadercall.Config
	partitionRacks bool
	observer       func(Report)
}

func defaultConfig() config {
	return config{Config: leadercall.DefaultConfig(), partitionRacks: true}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTimeout bounds the call to assignd; after it the leader assigns
// in-process. The client's own timeout (client.WithTimeout) bounds the
// call as well, so the shorter of the two applies. Keep it well under the
// group's rebalance timeout (kgo.RebalanceTimeout, 60 s by default): the
// whole group waits while the leader balances. The call is never left
// unbounded, whatever the client's configuration: d ≤ 0 selects the
// default. Default: client.DefaultTimeout (2 s).
func WithTimeout(d time.Duration) Option { return optionFunc(func(c *config) { c.SetTimeout(d) }) }

// WithFallbackTimeout bounds the in-process fallback. A group too large
// to plan within d gets the valid plan the engine has by then (every
// partition placed with exactly one subscriber, balance refinements
// skipped) with a warning; a cooperative group is asked for the follow-up
// rebalance that evens it out. So the leader is blocked at most the call's
// timeout, d and one linear placement: keep their sum well under the
// group's rebalance timeout (kgo.RebalanceTimeout, 60 s by default). Within d
// the plan is the one assignd sends. The fallback is never left unbounded:
// d ≤ 0 selects the default. Default: client.DefaultFallbackTimeout (5 s).
func WithFallbackTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.SetFallbackTimeout(d) })
}

// WithPartitionRacks sends (and, in a fallback, uses) the racks of each
// partition's replicas when at least one member reports a rack (kgo.Rack),
// so that the assignor can place partitions in their consumers' racks
// (KIP-881). Turn it off to assign by balance and stickiness alone while
// still using kgo.Rack for follower fetching (KIP-392). Default: on.
func WithPartitionRacks(on bool) Option {
	return optionFunc(func(c *config) { c.partitionRacks = on })
}
