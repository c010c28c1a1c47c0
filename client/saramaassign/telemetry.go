package saramaassign

import (
	"log/slog"

	"github.com/IBM/sarama"
	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/client"
)

// Stats returns the strategy's counters since it was created.
func (s *Strategy) Stats() client.BalanceStats { return s.lead.Stats() }

// Report describes one plan this member computed as group leader; its
// Group is the id given to WithGroupID. sarama tells a strategy neither
// the generation being formed nor the leader's member id, so unlike the
// franz-go shim's report it has neither.
type Report struct {
	client.BalanceReport
	// Warnings is input that was ignored rather than rejected, e.g.
	// subscribed topics sarama has no partitions for.
	Warnings []string
	// Plan is what the leader returned to sarama. Read it only: sarama
	// encodes it into SyncGroup.
	Plan sarama.BalanceStrategyPlan
}

// WithLogger receives a warning for every fallback, an error for a
// fallback that means a setting is wrong (naming it, see Report.Check) and
// an error when even the fallback fails; debug lines for every plan.
// Default: slog.Default().
func WithLogger(l *slog.Logger) Option { return optionFunc(func(c *config) { c.Logger = l }) }

// WithMeterProvider records the assignd.client.fallbacks counter and the
// assignd.client.balance.duration histogram with mp. Default: the global
// provider (otel.GetMeterProvider()), a no-op until the program sets one.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.Meters = mp })
}

// WithObserver calls fn after every plan this member computes as leader,
// successful or not, with what was decided. fn runs on sarama's rebalance
// path while the group waits: it must be quick. Default: none.
func WithObserver(fn func(Report)) Option { return optionFunc(func(c *config) { c.observer = fn }) }
