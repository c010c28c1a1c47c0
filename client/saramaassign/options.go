package saramaassign

import (
	"time"

	"github.com/assignd/assignd/client/internal/leadercall"
)

// Option configures a Strategy. Options are sealed: only this package
// defines them.
type Option interface{ apply(*config) }

type config struct {
	group string
	leadercall.Config
	observer func(Report)
}

func defaultConfig() config {
	return config{Config: leadercall.DefaultConfig()}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithGroupID names the consumer group in the calls to assignd, whose
// policy may choose the assignor by group id, and in logs, metrics and
// reports. sarama does not tell a strategy which group it balances, so
// pass the id given to sarama.NewConsumerGroup. Default: "" (assignd's
// rules that match on group ids do not apply).
func WithGroupID(id string) Option { return optionFunc(func(c *config) { c.group = id }) }

// WithTimeout bounds the call to assignd; after it the leader plans
// in-process. The client's own timeout (client.WithTimeout) bounds the
// call as well, so the shorter of the two applies. Keep it well under the
// group's rebalance timeout (Consumer.Group.Rebalance.Timeout, 60 s by
// default): every member waits while the leader plans. The call is never
// left unbounded, whatever the client's configuration: d ≤ 0 selects the
// default. Default: client.DefaultTimeout (2 s).
func WithTimeout(d time.Duration) Option { return optionFunc(func(c *config) { c.SetTimeout(d) }) }

// WithFallbackTimeout bounds the in-process fallback. A group too large
// to plan within d gets the valid plan the engine has by then (every
// partition placed with exactly one subscriber, balance refinements
// skipped) with a warning; the next rebalance evens it out. So the leader is blocked at most the call's
// timeout, d and one linear placement: keep their sum well under the
// group's rebalance timeout (Consumer.Group.Rebalance.Timeout, 60 s by default). Within d
// the plan is the one assignd sends. The fallback is never left unbounded:
// d ≤ 0 selects the default. Default: client.DefaultFallbackTimeout (5 s).
func WithFallbackTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.SetFallbackTimeout(d) })
}
