package replay

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/assignd/assignd/assign"
)

// TestReplayEngineBounds: replays run one at a time on their own slot,
// each with the call's context in its options; a replay waiting for the
// slot ends with its call; one over the replay's memory limit never runs.
func TestReplayEngineBounds(t *testing.T) {
	var running, most atomic.Int32
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	run := func(ctx context.Context, _ assign.Assignor, _ *assign.Group, opts ...assign.Option) (*assign.Result, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		started <- struct{}{}
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &assign.Result{}, nil
	}
	r := New(Config{Run: run, MemoryBudget: 8 << 20})
	rp := &replay{g: &assign.Group{}, bytes: 1 << 20}
	a := assign.Assignors()[0]

	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := r.engine(context.Background(), rp, a, rp.g, nil)
			errs <- err
		}()
	}
	<-started
	// One holds the slot; a fourth, whose call ends, gives up waiting.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.engine(ctx, rp, a, rp.g, nil); err == nil {
		t.Error("a replay whose call ended ran")
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if most.Load() != 1 {
		t.Errorf("%d replays ran at once, want 1", most.Load())
	}

	big := &replay{g: &assign.Group{}, bytes: 2 << 20}
	if _, err := r.engine(context.Background(), big, a, big.g, nil); err == nil || !strings.Contains(err.Error(), "over the replay limit") {
		t.Errorf("over the limit: %v", err)
	}
}
