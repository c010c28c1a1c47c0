package rollout_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/internal/bus"
	"github.com/assignd/assignd/internal/kafkaconn"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rollout"
)

// Rollout records reach the Controller in log order; a rollout record
// under another key is ignored, as the replicas could read it in
// different orders with the others.
func TestBusLogKeepsOneOrder(t *testing.T) {
	broker := kfake.MustCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "rollout-history"))
	defer broker.Close()
	b, err := bus.New(kafkaconn.Config{Brokers: broker.ListenAddrs()[0]}, bus.WithTopic("rollout-history"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	l := rollout.NewBusLog(b, nil)
	var mu sync.Mutex
	var got []string
	l.AttachFunc(func(ev *assigndv1.RolloutEvent) {
		mu.Lock()
		got = append(got, ev.GetRule())
		mu.Unlock()
	})
	b.Start()

	// Another writer puts a rollout record under its own key.
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker.ListenAddrs()...), kgo.DefaultProduceTopic("rollout-history"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	stray, err := proto.Marshal(&assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_HALT, Revision: "r", Rule: "stray"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	l.Publish(&assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_SERVING, Revision: "r", Rule: "first"})
	if err := cl.ProduceSync(ctx, &kgo.Record{Key: []byte("not-rollout"), Value: stray,
		Headers: []kgo.RecordHeader{{Key: bus.KindHeader, Value: []byte(rollout.BusKind)}}}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	l.Publish(&assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ADVANCE, Revision: "r", Rule: "second"})
	wait := func(n int) {
		t.Helper()
		for {
			mu.Lock()
			k := len(got)
			mu.Unlock()
			if k >= n {
				return
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the Controller got %d records, want %d", k, n)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	wait(2)
	// Give the stray record every chance to come through.
	l.Publish(&assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ADVANCE, Revision: "r", Rule: "third"})
	wait(3)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] != "first" || got[1] != "second" || got[2] != "third" {
		t.Errorf("the Controller got %v, want [first second third] (not the stray record)", got)
	}
}
