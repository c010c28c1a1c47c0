package grouplab

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// ProduceMarkers writes n records with distinct values to every partition
// of topics (name → partition count) through the brokers at seeds, and
// returns the values by partition once every one was acknowledged. Each
// value names the phase ("phase/topic/partition/i"), so that a record
// can be traced to the step of the test that wrote it. The records are
// uncompressed: KafkaJS reads only gzip without extra codec packages, and
// franz-go compresses with snappy by default.
func ProduceMarkers(ctx context.Context, seeds []string, topics map[string]int32, phase string, n int) (map[TP][]string, error) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()))
	if err != nil {
		return nil, fmt.Errorf("grouplab: producer: %w", err)
	}
	defer cl.Close()
	out := make(map[TP][]string)
	var recs []*kgo.Record
	for topic, count := range topics {
		for p := range count {
			for i := range n {
				v := fmt.Sprintf("%s/%s/%d/%d", phase, topic, p, i)
				out[TP{Topic: topic, Partition: p}] = append(out[TP{Topic: topic, Partition: p}], v)
				recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Value: []byte(v)})
			}
		}
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return nil, fmt.Errorf("grouplab: producing %s: %w", phase, err)
	}
	return out, nil
}
