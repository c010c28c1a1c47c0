package grouplab_test

import (
	"sync/atomic"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/testbed/grouplab"
)

func TestBrokerFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want grouplab.BrokerKind
		ok   bool
	}{
		{"", grouplab.KFake, true},
		{"kfake", grouplab.KFake, true},
		{"kafka", grouplab.Kafka, true},
		{"Kafka", 0, false},
		{"redpanda", 0, false},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv(grouplab.BrokerEnv, tc.env)
			got, err := grouplab.BrokerFromEnv()
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("%s=%q: %v, %v; want %v (ok %v)", grouplab.BrokerEnv, tc.env, got, err, tc.want, tc.ok)
			}
		})
	}
}

// TestKFakeBrokerSeam: on kfake a lab's group keeps its name, and the
// broker observes the requests it is asked to.
func TestKFakeBrokerSeam(t *testing.T) {
	b, err := grouplab.StartBroker(t.Context(), grouplab.KFake, []grouplab.Topic{{Name: "a", Partitions: 2}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Kind() != grouplab.KFake || b.Group("g") != "g" || len(b.Seeds()) != 1 || b.LogTail(10) != "" {
		t.Errorf("kind %v, group %q, seeds %v", b.Kind(), b.Group("g"), b.Seeds())
	}
	var seen atomic.Int64
	b.Observe(func(r kmsg.Request) {
		if _, ok := r.(*kmsg.MetadataRequest); ok {
			seen.Add(1)
		}
	}, kmsg.Metadata)
	cl, err := kgo.NewClient(kgo.SeedBrokers(b.Seeds()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if _, err := kmsg.NewPtrMetadataRequest().RequestWith(t.Context(), cl); err != nil {
		t.Fatal(err)
	}
	if seen.Load() == 0 {
		t.Error("the metadata request was not observed")
	}
	if _, err := grouplab.StartBroker(t.Context(), grouplab.KFake, []grouplab.Topic{{Name: "a"}}); err == nil {
		t.Error("a topic without partitions was accepted")
	}
}
