// Package loadtopic gives the tests of Kafka-sampled load (the load
// source, load-sticky@1 end to end, shared weight snapshots) their topic:
// a one-broker kfake cluster holding it and a producer that writes to the
// partitions the test names, so that the test decides each partition's
// rate.
package loadtopic

import (
	"context"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Topic is a topic on a kfake cluster of its own, with a producer that
// picks partitions itself. Both close when the test ends.
type Topic struct {
	Name     string
	Seeds    []string
	Producer *kgo.Client
}

// Start starts the cluster with topic name of the given partitions (opts
// are further cluster options) and the producer.
func Start(t testing.TB, name string, partitions int32, opts ...kfake.Opt) *Topic {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.SeedTopics(partitions, name)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	p, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return &Topic{Name: name, Seeds: c.ListenAddrs(), Producer: p}
}

// Records are counts[p] records for each partition p.
func (tp *Topic) Records(counts ...int) []*kgo.Record {
	var rs []*kgo.Record
	for p, n := range counts {
		for range n {
			rs = append(rs, &kgo.Record{Topic: tp.Name, Partition: int32(p), Value: []byte("v")})
		}
	}
	return rs
}

// Produce writes counts[p] records to each partition p and returns once
// the broker acknowledged them all; a failure fails the test.
func (tp *Topic) Produce(ctx context.Context, t testing.TB, counts ...int) {
	t.Helper()
	if err := tp.Producer.ProduceSync(ctx, tp.Records(counts...)...).FirstErr(); err != nil {
		t.Fatal(err)
	}
}
