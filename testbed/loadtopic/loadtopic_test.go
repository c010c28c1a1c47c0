package loadtopic_test

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/assignd/assignd/testbed/loadtopic"
)

// Produce puts counts[p] records on partition p, and nothing elsewhere.
func TestProduceLandsOnTheNamedPartitions(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tp := loadtopic.Start(t, "events", 3)
	tp.Produce(ctx, t, 5, 0, 2)
	ends, err := kadm.NewClient(tp.Producer).ListEndOffsets(ctx, tp.Name)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range []int64{5, 0, 2} {
		if o, _ := ends.Lookup(tp.Name, int32(p)); o.Offset != want {
			t.Errorf("partition %d ends at %d, want %d", p, o.Offset, want)
		}
	}
}
