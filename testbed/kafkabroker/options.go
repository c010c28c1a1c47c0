package kafkabroker

import (
	"maps"
	"time"
)

// Option configures [Start]. Options are sealed: only this package
// defines them.
type Option interface{ apply(*config) }

type config struct {
	dir          string
	libDir       string
	startTimeout time.Duration
	heap         string
	settings     map[string]string
	tap          bool
	classpath    []string
}

func defaultConfig() config {
	return config{startTimeout: 90 * time.Second, heap: "512m", settings: DefaultConfig()}
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// DefaultConfig returns the broker settings [Start] adds to the
// listeners, the node id and the log directory; [WithConfig] overrides any
// of them. Each one makes group tests fast or fits a one-node cluster.
func DefaultConfig() map[string]string { return maps.Clone(defaultSettings) }

var defaultSettings = map[string]string{
	// A new group's first rebalance starts at once (default 3 s).
	"group.initial.rebalance.delay.ms": "0",
	// Tests use sessions far shorter than the default minimum (6 s), as
	// they do on kfake, so that a crashed member is evicted quickly.
	"group.min.session.timeout.ms": "100",
	// One node: internal topics with one replica, and one partition for
	// the offsets topic so that the first group does not wait for fifty.
	"offsets.topic.replication.factor":                 "1",
	"offsets.topic.num.partitions":                     "1",
	"transaction.state.log.replication.factor":         "1",
	"transaction.state.log.min.isr":                    "1",
	"transaction.state.log.num.partitions":             "1",
	"share.coordinator.state.topic.replication.factor": "1",
	"share.coordinator.state.topic.min.isr":            "1",
	"share.coordinator.state.topic.num.partitions":     "1",
	"auto.create.topics.enable":                        "false",
	"num.partitions":                                   "1",
	"num.network.threads":                              "2",
	"num.io.threads":                                   "2",
	"background.threads":                               "2",
	"num.recovery.threads.per.data.dir":                "1",
	"group.coordinator.threads":                        "1",
	"log.segment.bytes":                                "16777216",
	"delete.topic.enable":                              "true",
	"controller.quorum.election.timeout.ms":            "1000",
	"broker.heartbeat.interval.ms":                     "500",
	"broker.session.timeout.ms":                        "9000",
}

// WithDir runs the broker in dir: its data, settings and log (broker.log)
// go there, and [Broker.Stop] leaves it in place. Default: a new temporary
// directory, removed by Stop unless ASSIGND_KAFKA_KEEP=1.
func WithDir(dir string) Option { return optionFunc(func(c *config) { c.dir = dir }) }

// WithStartTimeout bounds the storage format and the start, until the
// broker serves. Default: 90 s.
func WithStartTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) { c.startTimeout = d })
}

// WithConfig sets one broker setting, overriding [DefaultConfig]'s. The
// listeners, node.id, process.roles and log.dirs are the package's.
func WithConfig(key, value string) Option {
	return optionFunc(func(c *config) { c.settings[key] = value })
}

// WithTap puts a Kafka-protocol proxy in front of the broker: the broker
// advertises the proxy's address, so every client's requests pass through
// it and [Broker.Observe] sees them. Default: off (clients connect to the
// broker itself).
func WithTap() Option { return optionFunc(func(c *config) { c.tap = true }) }

// WithClasspath adds jars to the broker's classpath after its own: each
// entry is a jar file, or a directory whose jars all go in (dir/*). This
// is how a test loads a broker plugin, such as a KIP-848 assignor named in
// group.consumer.assignors ([WithConfig]). Default: the broker's jars only.
func WithClasspath(entries ...string) Option {
	return optionFunc(func(c *config) { c.classpath = append(c.classpath, entries...) })
}

// WithHeap sets the JVM's maximum heap (-Xmx), e.g. "384m". Default:
// 512m for [Start], 384m per node for [StartCluster].
func WithHeap(size string) Option { return optionFunc(func(c *config) { c.heap = size }) }
