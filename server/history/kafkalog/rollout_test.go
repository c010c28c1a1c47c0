package kafkalog_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/history/kafkalog"
)

// Rollout records reach the handler in log order, those read before it
// was set first; a rollout record under another key is ignored, as the
// replicas could read it in different orders with the others.
func TestRolloutRecordsKeepOneOrder(t *testing.T) {
	broker := kfake.MustCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "rollout-history"))
	defer broker.Close()
	l, err := kafkalog.New(broker.ListenAddrs(), kafkalog.WithTopic("rollout-history"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s, err := history.New(history.WithPublisher(l))
	if err != nil {
		t.Fatal(err)
	}
	l.Start(s)

	// Another writer puts a rollout record under its own key.
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker.ListenAddrs()...), kgo.DefaultProduceTopic("rollout-history"))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	stray, err := proto.Marshal(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_RolloutEvent{RolloutEvent: &assigndv1.RolloutEvent{
		Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_HALT, Revision: "r", Rule: "stray"}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, &kgo.Record{Key: []byte("not-rollout"), Value: stray}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	l.PublishRollout(&assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_SERVING, Revision: "r", Rule: "first"})

	var mu sync.Mutex
	var got []string
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
				t.Fatalf("the handler got %d records, want %d", k, n)
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	// Set the handler once the first record may have been read.
	time.Sleep(200 * time.Millisecond)
	l.SetRolloutHandler(func(ev *assigndv1.RolloutEvent) {
		mu.Lock()
		got = append(got, ev.GetRule())
		mu.Unlock()
	})
	l.PublishRollout(&assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ADVANCE, Revision: "r", Rule: "second"})
	wait(2)
	// Give the stray record every chance to come through.
	l.PublishRollout(&assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ADVANCE, Revision: "r", Rule: "third"})
	wait(3)
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] != "first" || got[1] != "second" || got[2] != "third" {
		t.Errorf("the handler got %v, want [first second third] (not the stray record)", got)
	}
}
