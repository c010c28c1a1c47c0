package kgoassign

import (
	"log/slog"

	"github.com/assignd/assignd/client"
	"go.opentelemetry.io/otel/metric"
)

// Stats returns the balancer's counters since it was created.
func (b *Balancer) Stats() client.BalanceStats { return b.lead.Stats() }

// Report describes one balance this member ran as group leader.
type Report struct {
	client.BalanceReport
	// Generation is the generation being formed.
	Generation int32
	Leader     string
	// FollowupRequired: partitions were withheld until their owners revoke
	// them; the group rebalances again once they have (KIP-429).
	FollowupRequired bool
	// Assignments are the bytes sent in SyncGroup, by member id.
	Assignments map[string][]byte
}

// WithLogger receives a warning for every fallback, an error for a
// fallback that means a setting is wrong (naming it, see Report.Check) and
// an error when even the fallback fails; debug lines for every balance.
// Default: slog.Default().
func WithLogger(l *slog.Logger) Option { return optionFunc(func(c *config) { c.Logger = l }) }

// WithMeterProvider records the assignd.client.fallbacks counter and the
// assignd.client.balance.duration histogram with mp. Default: the global
// provider (otel.GetMeterProvider()), a no-op until the program sets one.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.Meters = mp })
}

// WithObserver calls fn after every balance this member runs as leader,
// successful or not, with what was decided. fn runs on kgo's group
// management goroutine while the group waits: it must be quick. Default:
// none.
func WithObserver(fn func(Report)) Option { return optionFunc(func(c *config) { c.observer = fn }) }
