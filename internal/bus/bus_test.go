package bus_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/assignd/assignd/internal/bus"
	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/testbed/metrictest"
)

// Each kind's records reach its own subscriber, in the order of their
// key's partition, with their key and Kafka timestamp; a record of a kind
// nobody reads, or with no kind, is skipped and counted, and one its
// subscriber refuses is counted as invalid.
func TestKindsReachTheirSubscribers(t *testing.T) {
	broker := kfake.MustCluster(kfake.NumBrokers(1))
	defer broker.Close()
	metrics := sdkmetric.NewManualReader()
	b, err := bus.New(kafkaconn.Config{Brokers: broker.ListenAddrs()[0]}, bus.WithTopic("kinds"),
		bus.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(metrics))))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var mu sync.Mutex
	got := map[string][]string{}
	for _, kind := range []string{"a", "b"} {
		b.Subscribe(kind, func(r bus.Record) error {
			if r.Time.IsZero() {
				t.Errorf("%s record %q without its timestamp", kind, r.Value)
			}
			if string(r.Value) == "refused" {
				return errors.New("refused")
			}
			mu.Lock()
			got[kind] = append(got[kind], string(r.Key)+"="+string(r.Value))
			mu.Unlock()
			return nil
		})
	}
	b.Start()
	for i, v := range []string{"1", "2", "3"} {
		b.Produce(bus.Record{Kind: "a", Key: []byte("k"), Value: []byte(v)}, nil)
		b.Produce(bus.Record{Kind: []string{"b", "c", "b"}[i], Key: []byte("j"), Value: []byte(v)}, nil)
	}
	b.Produce(bus.Record{Kind: "a", Key: []byte("k"), Value: []byte("refused")}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker.ListenAddrs()...), kgo.DefaultProduceTopic("kinds"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Value: []byte("no kind")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	counter := func(name string) int64 { return metrictest.Sum(t, metrics, name) }
	for counter("assignd.history.records.consumed") < 8 {
		select {
		case <-ctx.Done():
			t.Fatalf("%d records read, want 8", counter("assignd.history.records.consumed"))
		case <-time.After(20 * time.Millisecond):
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if a, bs := got["a"], got["b"]; len(a) != 3 || a[0] != "k=1" || a[1] != "k=2" || a[2] != "k=3" || len(bs) != 2 || bs[0] != "j=1" || bs[1] != "j=3" {
		t.Errorf("subscribers got %v, want a: [k=1 k=2 k=3], b: [j=1 j=3]", got)
	}
	if n := counter("assignd.history.records.unknown"); n != 2 {
		t.Errorf("%d records counted unknown, want 2 (kind c, no kind)", n)
	}
	if n := counter("assignd.history.records.invalid"); n != 1 {
		t.Errorf("%d records counted invalid, want 1", n)
	}
}

// A record over the cap fails at once, without reaching Kafka.
func TestRecordOverTheCapFails(t *testing.T) {
	b, err := bus.New(kafkaconn.Config{Brokers: "127.0.0.1:1"}, bus.WithMaxRecordBytes(1024))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var got error
	b.Produce(bus.Record{Kind: "a", Value: make([]byte, 1025)}, func(err error) { got = err })
	if !errors.Is(got, bus.ErrTooLarge) {
		t.Errorf("a record of 1025 bytes over a cap of 1024: %v, want ErrTooLarge", got)
	}
}

// Subscribers are set before Start, one a kind: the topic is read once,
// from its start, and a late subscriber would miss what was read.
func TestSubscribeBeforeStartOnly(t *testing.T) {
	b, err := bus.New(kafkaconn.Config{Brokers: "127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", what)
			}
		}()
		f()
	}
	b.Subscribe("a", func(bus.Record) error { return nil })
	mustPanic("a second subscriber to a kind", func() { b.Subscribe("a", func(bus.Record) error { return nil }) })
	b.Start()
	mustPanic("Subscribe after Start", func() { b.Subscribe("b", func(bus.Record) error { return nil }) })
}
