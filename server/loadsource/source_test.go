package loadsource_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/assignd/assignd/server/loadsource"
	"github.com/assignd/assignd/testbed/loadtopic"
)

// Rates from a kfake cluster: records produced between two samples one
// second apart become that partition's rate; a topic is ready only once
// every partition has one; stale snapshots are refused.
func TestSourceRatesFromKafka(t *testing.T) {
	orders := loadtopic.Start(t, "orders", 3)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	src := loadsource.New(kadm.NewClient(orders.Producer).ListEndOffsets, loadsource.WithStaleAfter(time.Minute))
	t0 := time.Unix(1_000_000, 0)
	if _, err := src.Weights([]string{"orders"}, t0); !errors.Is(err, loadsource.ErrNotReady) {
		t.Fatalf("before any sample: %v, want ErrNotReady", err)
	}
	if err := src.Sample(ctx, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := src.Weights([]string{"orders"}, t0); !errors.Is(err, loadsource.ErrNotReady) {
		t.Fatalf("after one sample: %v, want ErrNotReady", err)
	}
	orders.Produce(ctx, t, 40, 4)
	t1 := t0.Add(2 * time.Second)
	if err := src.Sample(ctx, t1); err != nil {
		t.Fatal(err)
	}
	ws, err := src.Weights([]string{"orders"}, t1)
	if err != nil {
		t.Fatal(err)
	}
	if got := ws[0].Weights; len(got) != 3 || got[0] != 20 || got[1] != 2 || got[2] != 0 {
		t.Fatalf("rates %v, want [20 2 0] records/s", got)
	}
	// Smoothing: no records for the next two seconds halves nothing at
	// once; the rate decays by the smoothing factor (0.3 of the newest).
	t2 := t1.Add(2 * time.Second)
	if err := src.Sample(ctx, t2); err != nil {
		t.Fatal(err)
	}
	ws, err = src.Weights([]string{"orders"}, t2)
	if err != nil {
		t.Fatal(err)
	}
	if got := ws[0].Weights[0]; got < 13.9 || got > 14 {
		t.Fatalf("smoothed rate %v, want 14 (0.7 × 20, quantised)", got)
	}
	if _, err := src.Weights([]string{"orders"}, t2.Add(2*time.Minute)); !errors.Is(err, loadsource.ErrStale) {
		t.Fatalf("two minutes later: %v, want ErrStale", err)
	}
	// A topic that does not exist never gets ready, and does not stop
	// the others from being sampled.
	if _, err := src.Weights([]string{"orders", "nope"}, t2); !errors.Is(err, loadsource.ErrNotReady) {
		t.Fatalf("missing topic: %v, want ErrNotReady", err)
	}
	orders.Produce(ctx, t, 0, 0, 6)
	t3 := t2.Add(2 * time.Second)
	_ = src.Sample(ctx, t3) // the missing topic may be reported as an error
	ws, err = src.Weights([]string{"orders"}, t3)
	if err != nil {
		t.Fatal(err)
	}
	if got := ws[0].Weights[2]; got > 0.9 || got < 0.9*(1-1.0/256) {
		t.Fatalf("partition 2 rate %v, want 0.9 (0.3 × 3/s) quantised to 8 significant bits", got)
	}
}
