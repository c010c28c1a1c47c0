package grouplab_test

import (
	"testing"

	"github.com/assignd/assignd/client/grouplab"
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
	if _, err := grouplab.StartBroker(t.Context(), grouplab.KFake, []grouplab.Topic{{Name: "a"}}); err == nil {
		t.Error("a topic without partitions was accepted")
	}
}
