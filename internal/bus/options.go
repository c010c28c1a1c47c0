package bus

import (
	"cmp"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// Defaults of the options.
const (
	// DefaultTopic is the topic's name.
	DefaultTopic = "assignd-history"
	// DefaultPartitions is the partition count of a topic the Bus
	// creates: the topic is small and read whole by every replica.
	DefaultPartitions = 3
	// DefaultReplicationFactor is the replication factor of a topic the
	// Bus creates: -1, the broker's default.replication.factor.
	DefaultReplicationFactor = -1
	// DefaultRetention is how long the topic created keeps records: a
	// restarted replica reads back the last day. Longer keeps the history
	// of groups that rebalance rarely, at the cost of a longer read at
	// start.
	DefaultRetention = 24 * time.Hour
	// DefaultBuffer is how many records may wait for Kafka; beyond it
	// records fail at once.
	DefaultBuffer = 4096
	// DefaultMaxRecordBytes caps a record's value. Kafka's default
	// message.max.bytes is 1 MiB.
	DefaultMaxRecordBytes = 512 << 10
	// DefaultDeliveryTimeout is how long a record may wait for Kafka
	// before it fails.
	DefaultDeliveryTimeout = 10 * time.Second
)

// Option configures a Bus. Options are sealed: only this package defines
// them.
type Option interface{ apply(*config) }

type config struct {
	topic             string
	partitions        int32
	replicationFactor int16
	retention         time.Duration
	buffer            int
	maxRecordBytes    int
	deliveryTimeout   time.Duration
	clientID          string
	logger            *slog.Logger
	meters            metric.MeterProvider
	kgo               []kgo.Opt
}

func defaults() config {
	return config{
		topic: DefaultTopic, partitions: DefaultPartitions, replicationFactor: DefaultReplicationFactor, retention: DefaultRetention,
		buffer: DefaultBuffer, maxRecordBytes: DefaultMaxRecordBytes, deliveryTimeout: DefaultDeliveryTimeout,
		clientID: "assignd-history", logger: slog.New(slog.DiscardHandler), meters: otel.GetMeterProvider(),
	}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTopic names the topic. Default: [DefaultTopic].
func WithTopic(name string) Option { return optionFunc(func(c *config) { c.topic = name }) }

// WithTopicCreation sets what a topic the Bus creates gets: partitions,
// replication factor (-1: the broker's default.replication.factor) and
// retention.ms. An existing topic is left as it is. Defaults:
// [DefaultPartitions], [DefaultReplicationFactor], [DefaultRetention].
func WithTopicCreation(partitions int32, replicationFactor int16, retention time.Duration) Option {
	return optionFunc(func(c *config) {
		c.partitions, c.replicationFactor, c.retention = partitions, replicationFactor, retention
	})
}

// WithBuffer lets at most n records wait for Kafka. Default:
// [DefaultBuffer].
func WithBuffer(n int) Option { return optionFunc(func(c *config) { c.buffer = n }) }

// WithMaxRecordBytes caps a record's value; [Bus.Produce] fails a larger
// one with [ErrTooLarge]. Default: [DefaultMaxRecordBytes].
func WithMaxRecordBytes(n int) Option { return optionFunc(func(c *config) { c.maxRecordBytes = n }) }

// WithDeliveryTimeout fails records Kafka did not take within d.
// Default: [DefaultDeliveryTimeout].
func WithDeliveryTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.deliveryTimeout = d })
}

// WithLogger logs the Bus's state changes (Kafka unreachable, the topic
// created). Default: no logging.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = cmp.Or(l, c.logger) })
}

// WithMeterProvider exports the Bus's counters. Default: the global one.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) { c.meters = cmp.Or(mp, c.meters) })
}

// WithKgoOptions adds franz-go client options, after the Bus's own.
func WithKgoOptions(opts ...kgo.Opt) Option {
	return optionFunc(func(c *config) { c.kgo = append(c.kgo, opts...) })
}
