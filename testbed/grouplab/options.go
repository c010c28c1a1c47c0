package grouplab

import (
	"io"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/selection"
)

// Option configures a Lab. Options are sealed: only this package defines
// them.
type Option interface{ apply(*config) }

type config struct {
	group            string
	heartbeat        time.Duration
	session          time.Duration
	rebalanceTimeout time.Duration
	quiet            time.Duration
	produceEvery     time.Duration
	shimTimeout      time.Duration
	logger           *slog.Logger
	meters           metric.MeterProvider
	broker           BrokerKind
	brokerStart      time.Duration
	assigndOptions   []server.Option
	selector         selection.Selector
}

func defaultConfig() config {
	return config{
		group: "lab", heartbeat: 200 * time.Millisecond, session: 3 * time.Second,
		rebalanceTimeout: 10 * time.Second, quiet: 800 * time.Millisecond,
		produceEvery: 10 * time.Millisecond, shimTimeout: time.Second,
		logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		brokerStart: 2 * time.Minute,
	}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithGroup names the consumer group. Default: "lab". On the real broker
// the name gets a suffix unique to the lab ([Broker.Group]).
func WithGroup(name string) Option { return optionFunc(func(c *config) { c.group = name }) }

// WithHeartbeat sets the members' heartbeat interval, which paces
// rebalances: members learn of one at their next heartbeat. Default:
// 200 ms (Kafka's default is 3 s).
func WithHeartbeat(d time.Duration) Option { return optionFunc(func(c *config) { c.heartbeat = d }) }

// WithSessionTimeout sets the members' session timeout: how long a killed
// member keeps its partitions. Default: 3 s.
func WithSessionTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.session = d })
}

// WithQuietPeriod sets how long the group must show no rebalance activity
// to count as settled. Default: 800 ms (four heartbeats).
func WithQuietPeriod(d time.Duration) Option { return optionFunc(func(c *config) { c.quiet = d }) }

// WithLogger receives the lab's, assignd's and the shims' logs. Default:
// discarded.
func WithLogger(l *slog.Logger) Option { return optionFunc(func(c *config) { c.logger = l }) }

// WithMeterProvider receives the shims' metrics (assignd.client.fallbacks).
// Default: the global provider.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.meters = mp })
}

// WithBroker selects the broker: [KFake] or [Kafka]. Default: what
// $ASSIGND_BROKER says ([BrokerFromEnv]), kfake when it is unset.
func WithBroker(kind BrokerKind) Option { return optionFunc(func(c *config) { c.broker = kind }) }

// WithAssigndOptions builds the lab's assignd with these options, e.g.
// server.WithHistory: the same options, and so the same history store,
// serve again after StopAssignd and StartAssignd. Default: none.
func WithAssigndOptions(opts ...server.Option) Option {
	return optionFunc(func(c *config) { c.assigndOptions = append(c.assigndOptions, opts...) })
}

// WithSelector builds the lab's assignd with this Selector, e.g. a
// policy.Source. Default: selection.Default().
func WithSelector(sel selection.Selector) Option {
	return optionFunc(func(c *config) { c.selector = sel })
}
