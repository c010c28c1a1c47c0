package loadsource_test

import (
	"fmt"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/loadsource"
)

// Two replicas published rates for the same epoch; every replica reads
// the records in the same order and plans with the first, once the epoch
// is a margin old.
func ExampleBook() {
	b := loadsource.NewBook(loadsource.WithMargin(5 * time.Second))
	b.Share(&recorder{}, "replica-a")
	epoch := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	for _, r := range []struct {
		replica string
		rate    float64
	}{{"replica-b", 40}, {"replica-a", 44}} {
		b.Apply(&assigndv1.WeightSnapshot{Cluster: "eu", EpochUnixMs: epoch.UnixMilli(), IntervalMs: 30_000, Replica: r.replica,
			Topics: []*assigndv1.TopicRates{{Topic: "orders", Rates: []float64{r.rate, 1}}}})
	}
	for _, now := range []time.Time{epoch.Add(32 * time.Second), epoch.Add(35 * time.Second)} {
		ws, id, err := b.Weights("eu", []string{"orders"}, now, 2*time.Minute)
		fmt.Printf("%v %q %v\n", ws, id, err)
	}
	// Output:
	// [] "" load not sampled yet: no shared snapshot is past the propagation margin (5s) yet
	// [{orders [40 1]}] "eu@2026-12-02T06:00:00Z" <nil>
}
