package grouplab

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/testbed/kafkabroker"
)

// BrokerEnv is the environment variable that selects the broker every
// end-to-end suite runs on: "kfake" (the default) or "kafka".
const BrokerEnv = "ASSIGND_BROKER"

// BrokerKind is the kind of broker a lab runs on.
type BrokerKind uint8

const (
	// KFake is franz-go's in-process Kafka-protocol broker: fast, and the
	// default for the Go packages.
	KFake BrokerKind = iota + 1
	// Kafka is a real Apache Kafka 4.x broker (testbed/kafkabroker), one
	// per test binary, shared by its labs. What assignd does is judged on
	// it.
	Kafka
)

func (k BrokerKind) String() string { return enumName("BrokerKind", k, "kfake", "kafka") }

// enumName is the name of v, a constant of the enum typ counted from 1
// whose names are names, in order.
func enumName[E ~uint8](typ string, v E, names ...string) string {
	if v >= 1 && int(v) <= len(names) {
		return names[v-1]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

// BrokerFromEnv returns the broker $ASSIGND_BROKER selects: KFake when it
// is unset, empty or "kfake", Kafka for "kafka".
func BrokerFromEnv() (BrokerKind, error) {
	switch v := os.Getenv(BrokerEnv); v {
	case "", "kfake":
		return KFake, nil
	case "kafka":
		return Kafka, nil
	default:
		return 0, fmt.Errorf("grouplab: %s=%q: want kfake or kafka", BrokerEnv, v)
	}
}

// Broker is the Kafka cluster of one lab (or of one test of a harness
// that runs its own members, such as sarama's or foreign clients'): kfake
// with the topics seeded, or the test binary's real broker with the
// topics created afresh. Every lab on the real broker gets its own
// consumer group names ([Broker.Group]) and topics that no earlier lab's
// records are left in.
type Broker struct {
	kind    BrokerKind
	seeds   []string
	topics  []string
	suffix  string
	cluster *kfake.Cluster
	real    *kafkabroker.Broker

	mu    sync.Mutex
	stops []func()
}

// StartBroker starts a broker of kind with topics, bounded by ctx. Close
// releases it.
func StartBroker(ctx context.Context, kind BrokerKind, topics []Topic) (*Broker, error) {
	b := &Broker{kind: kind}
	for _, t := range topics {
		if t.Partitions <= 0 {
			return nil, fmt.Errorf("grouplab: topic %q needs partitions", t.Name)
		}
		b.topics = append(b.topics, t.Name)
	}
	switch kind {
	case KFake:
		opts := []kfake.Opt{
			kfake.NumBrokers(1),
			// kfake's default minimum (6 s, as Kafka's) would forbid the
			// short sessions that keep kill scenarios quick; the real
			// broker is configured the same (kafkabroker.DefaultConfig).
			kfake.GroupMinSessionTimeout(100 * time.Millisecond),
		}
		for _, t := range topics {
			opts = append(opts, kfake.SeedTopics(t.Partitions, t.Name))
		}
		c, err := kfake.NewCluster(opts...)
		if err != nil {
			return nil, fmt.Errorf("grouplab: starting kfake: %w", err)
		}
		b.cluster, b.seeds = c, c.ListenAddrs()
	case Kafka:
		real, err := sharedKafka(ctx)
		if err != nil {
			return nil, err
		}
		b.real, b.seeds = real, []string{real.Addr()}
		b.suffix = fmt.Sprintf(".%d", labs.Add(1))
		m := make(map[string]int32, len(topics))
		for _, t := range topics {
			m[t.Name] = t.Partitions
		}
		// An earlier lab's topics of the same names are deleted first:
		// their records and offsets must not leak into this one.
		if err := kafkabroker.DeleteTopics(ctx, b.seeds[0], b.topics...); err != nil {
			return nil, err
		}
		if err := kafkabroker.CreateTopics(ctx, b.seeds[0], m); err != nil {
			return nil, fmt.Errorf("grouplab: %w\n%s", err, real.LogTail(40))
		}
	default:
		return nil, fmt.Errorf("grouplab: unknown broker kind %d", kind)
	}
	return b, nil
}

// Kind is the broker's kind.
func (b *Broker) Kind() BrokerKind { return b.kind }

// Seeds are the addresses clients bootstrap from.
func (b *Broker) Seeds() []string { return b.seeds }

// Group returns the consumer group name to use for name: name itself on
// kfake (a cluster per lab), and name with a suffix unique to this Broker
// on the real broker, which every lab of the test binary shares.
func (b *Broker) Group(name string) string { return name + b.suffix }

// Observe calls fn with every request of the given keys the broker
// receives, before it handles them, until Close: through kfake's control
// hooks, or through the real broker's tap (a proxy every client connects
// through). On the real broker it sees the requests of every client of
// the test binary; filter by group.
func (b *Broker) Observe(fn func(kmsg.Request), keys ...kmsg.Key) {
	if b.cluster != nil {
		var stopped atomic.Bool
		for _, k := range keys {
			b.cluster.ControlKey(k.Int16(), func(r kmsg.Request) (kmsg.Response, error, bool) {
				if !stopped.Load() {
					fn(r)
				}
				return nil, nil, false // observe only: the broker handles it
			})
		}
		b.addStop(func() { stopped.Store(true) })
		return
	}
	want := map[int16]bool{}
	for _, k := range keys {
		want[k.Int16()] = true
	}
	stop, err := b.real.Observe(func(r kafkabroker.Request) {
		if want[r.Body.Key()] {
			fn(r.Body)
		}
	})
	if err != nil {
		panic(err) // the shared broker is always started with a tap
	}
	b.addStop(stop)
}

func (b *Broker) addStop(f func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stops = append(b.stops, f)
}

// LogTail returns the last n lines of the real broker's log, for a
// failing test's output; "" on kfake.
func (b *Broker) LogTail(n int) string {
	if b.real == nil {
		return ""
	}
	return b.real.LogTail(n)
}

// Close stops observing and releases the broker: kfake stops; on the real
// broker the topics are deleted (it keeps running for the next lab).
func (b *Broker) Close() {
	b.mu.Lock()
	stops := b.stops
	b.stops = nil
	b.mu.Unlock()
	for _, f := range stops {
		f()
	}
	if b.cluster != nil {
		b.cluster.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_ = kafkabroker.DeleteTopics(ctx, b.seeds[0], b.topics...)
}

var (
	labs   atomic.Int64
	shared struct {
		mu sync.Mutex
		b  *kafkabroker.Broker
	}
)

// sharedKafka returns the test binary's real broker, starting it (with a
// tap) on first use or after it died. Nothing stops it: the kernel kills
// it when the binary exits (kafkabroker's Pdeathsig), and the next
// broker's start sweeps its directory.
func sharedKafka(ctx context.Context) (*kafkabroker.Broker, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.b != nil {
		select {
		case <-shared.b.Done():
			shared.b.Stop()
			shared.b = nil
		default:
			return shared.b, nil
		}
	}
	b, err := kafkabroker.Start(ctx, kafkabroker.WithTap())
	if err != nil {
		return nil, fmt.Errorf("grouplab: starting the Kafka broker (%s=kafka): %w", BrokerEnv, err)
	}
	shared.b = b
	return b, nil
}
