package kafkalog

import (
	"crypto/tls"
	"log/slog"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Defaults of the options.
const (
	// DefaultTopic is the history topic's name.
	DefaultTopic = "assignd-history"
	// DefaultPartitions is the partition count of a topic the Log
	// creates: the topic is small and read whole by every replica.
	DefaultPartitions = 3
	// DefaultRetention is how long the topic created keeps records: a
	// restarted replica reads back the last day. Longer keeps the history
	// of groups that rebalance rarely, at the cost of a longer read at
	// start.
	DefaultRetention = 24 * time.Hour
	// DefaultBuffer is how many records may wait for Kafka; beyond it
	// records are dropped.
	DefaultBuffer = 4096
	// DefaultMaxRecordBytes caps a record: a decision whose record with
	// its input would be larger is shared without its input. Kafka's
	// default message.max.bytes is 1 MiB.
	DefaultMaxRecordBytes = 512 << 10
	// DefaultDeliveryTimeout is how long a record may wait for Kafka
	// before it is dropped.
	DefaultDeliveryTimeout = 10 * time.Second
	// DefaultGapRetry is how often a gap not yet shared is retried when
	// no record succeeds to trigger it.
	DefaultGapRetry = 5 * time.Second
)

// Option configures a Log. Options are sealed: only this package defines
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
	gapRetry          time.Duration
	tls               *tls.Config
	sasl              sasl.Mechanism
	logger            *slog.Logger
	meters            metric.MeterProvider
	kgo               []kgo.Opt
	weights           func(*assigndv1.WeightSnapshot, time.Time) // WithWeights
}

func defaults() config {
	return config{
		topic: DefaultTopic, partitions: DefaultPartitions, replicationFactor: -1, retention: DefaultRetention,
		buffer: DefaultBuffer, maxRecordBytes: DefaultMaxRecordBytes, deliveryTimeout: DefaultDeliveryTimeout,
		gapRetry: DefaultGapRetry, logger: slog.New(slog.DiscardHandler), meters: otel.GetMeterProvider(),
	}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithTopic names the topic. Default: DefaultTopic.
func WithTopic(name string) Option { return optionFunc(func(c *config) { c.topic = name }) }

// WithTopicCreation sets what a topic the Log creates gets: partitions,
// replication factor (-1: the broker's default.replication.factor) and
// retention.ms. An existing topic is left as it is. Defaults:
// DefaultPartitions, -1, DefaultRetention.
func WithTopicCreation(partitions int32, replicationFactor int16, retention time.Duration) Option {
	return optionFunc(func(c *config) {
		c.partitions, c.replicationFactor, c.retention = partitions, replicationFactor, retention
	})
}

// WithBuffer lets at most n records wait for Kafka. Default: DefaultBuffer.
func WithBuffer(n int) Option { return optionFunc(func(c *config) { c.buffer = n }) }

// WithMaxRecordBytes caps a record's size; larger records are shared
// without their input. Default: DefaultMaxRecordBytes.
func WithMaxRecordBytes(n int) Option { return optionFunc(func(c *config) { c.maxRecordBytes = n }) }

// WithDeliveryTimeout drops records Kafka did not take within d. Default:
// DefaultDeliveryTimeout.
func WithDeliveryTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.deliveryTimeout = d })
}

// WithGapRetry retries sharing a gap every d. Default: DefaultGapRetry.
func WithGapRetry(d time.Duration) Option { return optionFunc(func(c *config) { c.gapRetry = d }) }

// WithTLS connects to the brokers over TLS. Default: plaintext.
func WithTLS(t *tls.Config) Option { return optionFunc(func(c *config) { c.tls = t }) }

// WithSASL authenticates to the brokers with m (PLAIN, SCRAM-SHA-256 or
// SCRAM-SHA-512 from franz-go's sasl packages). Default: none.
func WithSASL(m sasl.Mechanism) Option { return optionFunc(func(c *config) { c.sasl = m }) }

// WithLogger logs the Log's state changes (Kafka lost and back, gaps).
// Default: no logging.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) {
		if l != nil {
			c.logger = l
		}
	})
}

// WithMeterProvider exports the Log's counters. Default: the global one.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return optionFunc(func(c *config) {
		if mp != nil {
			c.meters = mp
		}
	})
}

// WithKgoOptions adds franz-go client options, after the Log's own.
func WithKgoOptions(opts ...kgo.Opt) Option {
	return optionFunc(func(c *config) { c.kgo = append(c.kgo, opts...) })
}
