package kafkabroker_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/testbed/kafkabroker"
)

// TestClusterLosesANode starts three nodes, writes to a topic replicated
// to all three, kills the leader of its partition, and writes and reads
// it through the other two: nothing acknowledged is lost and writes go on
// with two in-sync replicas.
func TestClusterLosesANode(t *testing.T) {
	needBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := kafkabroker.StartCluster(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	c.StopOnCleanup(t)
	if err := kafkabroker.CreateTopics(ctx, c.Addr(), map[string]int32{"t": 1}); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.Seeds()...), kgo.ConsumeTopics("t"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("before")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	leader, err := kafkabroker.PartitionLeader(ctx, c.Addr(), "t", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Node(leader).Kill(); err != nil {
		t.Fatal(err)
	}
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("after")}).FirstErr(); err != nil {
		t.Fatalf("producing with node %d down: %v", leader, err)
	}
	var got []string
	for len(got) < 2 && ctx.Err() == nil {
		cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
	}
	if len(got) != 2 || got[0] != "before" || got[1] != "after" {
		t.Errorf("consumed %q, want [before after]", got)
	}
	if now, err := kafkabroker.PartitionLeader(ctx, c.Addr(), "t", 0); err != nil || now == leader {
		t.Errorf("leader after the kill: %d, %v; want another than %d", now, err, leader)
	}
	dir := c.Dir()
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, b := range c.Nodes() {
		<-b.Done()
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) && os.Getenv("ASSIGND_KAFKA_KEEP") != "1" {
		t.Errorf("the cluster's directory %s is still there after Stop (%v)", dir, err)
	}
}
