//go:build unix

package interop

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// produceMarkers writes n records with distinct values to every partition
// of topics and returns the values by partition. Each value names the
// phase, so a record can be traced to the step of the test that wrote it.
func produceMarkers(t *testing.T, brokers []string, topics map[string]int32, phase string, n int) map[tp][]string {
	t.Helper()
	// Uncompressed: KafkaJS reads only gzip without extra codec packages,
	// and franz-go compresses with snappy by default.
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		t.Fatalf("producer: %v", err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out := make(map[tp][]string)
	var recs []*kgo.Record
	for topic, count := range topics {
		for p := int32(0); p < count; p++ {
			for i := range n {
				v := fmt.Sprintf("%s/%s/%d/%d", phase, topic, p, i)
				out[tp{topic, p}] = append(out[tp{topic, p}], v)
				recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Value: []byte(v)})
			}
		}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatalf("producing %s: %v", phase, err)
	}
	return out
}

// checkPhase waits until every marker was consumed and then checks that
// each was consumed exactly once, by the member that owns its partition.
// It is meant for a stable group: no partition moves while it runs.
func checkPhase(t *testing.T, led *ledger, markers map[tp][]string, timeout time.Duration) {
	t.Helper()
	waitFor(t, timeout, "every marker record to be consumed", func() bool {
		for _, vs := range markers {
			for _, v := range vs {
				if len(led.consumersOf(v)) == 0 {
					return false
				}
			}
		}
		return true
	}, func() string { return missing(led, markers) }, led.history)
	owners := led.owners()
	for p, vs := range markers {
		for _, v := range vs {
			cs := led.consumersOf(v)
			if len(cs) != 1 {
				who := make([]string, len(cs))
				for i, c := range cs {
					who[i] = c.member
				}
				t.Errorf("record %q consumed %d times (by %v), want exactly once", v, len(cs), who)
				continue
			}
			if cs[0].member != owners[p] {
				t.Errorf("record %q consumed by %s, but %s owns %s", v, cs[0].member, owners[p], p)
			}
		}
	}
}

func missing(led *ledger, markers map[tp][]string) string {
	var b strings.Builder
	b.WriteString("not consumed:")
	n := 0
	for _, vs := range markers {
		for _, v := range vs {
			if len(led.consumersOf(v)) == 0 && n < 20 {
				b.WriteString(" " + v)
				n++
			}
		}
	}
	return b.String()
}
