package loadsource_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/assignd/assignd/server/loadsource"
)

// Run samples in the background while many callers ask for weights: no
// race (go test -race), every answer is a whole snapshot (every partition
// of the topic, none negative), and Run stops when its context ends.
func TestSourceConcurrentUse(t *testing.T) {
	var calls atomic.Int64
	list := func(_ context.Context, topics ...string) (kadm.ListedOffsets, error) {
		n := calls.Add(1)
		out := kadm.ListedOffsets{}
		for _, topic := range topics {
			out[topic] = map[int32]kadm.ListedOffset{}
			for p := range int32(4) {
				out[topic][p] = kadm.ListedOffset{Topic: topic, Partition: p, Offset: n * int64(p+1)}
			}
		}
		return out, nil
	}
	src := loadsource.New(list, loadsource.WithInterval(time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		src.Run(ctx, nil)
	}()
	// Wait (bounded) until both topics have rates: two samples after the
	// first ask.
	for start := time.Now(); ; time.Sleep(time.Millisecond) {
		if _, err := src.Weights([]string{"a", "b"}, time.Now()); err == nil {
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatal("no rates after 10 s of sampling every millisecond")
		}
	}
	var wg sync.WaitGroup
	var answered atomic.Int64
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				ws, err := src.Weights([]string{"a", "b"}, time.Now())
				if err != nil {
					continue
				}
				answered.Add(1)
				for _, tw := range ws {
					if len(tw.Weights) != 4 {
						t.Errorf("%s: %d weights, want 4", tw.Topic, len(tw.Weights))
					}
					for _, w := range tw.Weights {
						if w < 0 {
							t.Errorf("%s: negative rate %v", tw.Topic, w)
						}
					}
				}
				time.Sleep(100 * time.Microsecond)
			}
		}()
	}
	wg.Wait()
	cancel()
	<-done
	if answered.Load() == 0 {
		t.Fatalf("%d samples, no answer with weights", calls.Load())
	}
	t.Logf("%d samples, %d answers with weights", calls.Load(), answered.Load())
}
