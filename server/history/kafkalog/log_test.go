package kafkalog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/assignd/assignd/internal/bus"
	"github.com/assignd/assignd/internal/kafkaconn"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/history/kafkalog"
)

// sharedStore is replica's history, shared through the topic cap-history
// (unless opts name another) on broker until the test ends.
func sharedStore(t testing.TB, broker, replica string, opts ...bus.Option) *history.Store {
	t.Helper()
	b, err := bus.New(kafkaconn.Config{Brokers: broker}, append([]bus.Option{bus.WithTopic("cap-history")}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	l, err := kafkalog.New(b)
	if err != nil {
		t.Fatal(err)
	}
	s, err := history.New(history.WithReplica(replica), history.WithPublisher(l))
	if err != nil {
		t.Fatal(err)
	}
	l.Start(s)
	b.Start()
	t.Cleanup(func() { l.Close(); b.Close() })
	return s
}

// A decision's input travels with it while the record stays within the
// cap; a larger one is shared without its input, and a shadow run's
// record never carries one.
func TestRecordCap(t *testing.T) {
	broker := kfake.MustCluster(kfake.NumBrokers(1))
	defer broker.Close()
	a := sharedStore(t, broker.ListenAddrs()[0], "a", bus.WithMaxRecordBytes(4096))
	b := sharedStore(t, broker.ListenAddrs()[0], "b")

	input := func(group string, size int) []byte {
		in, err := proto.MarshalOptions{Deterministic: true}.Marshal(&assigndv1.AssignRequest{GroupId: group,
			Topics: []*assigndv1.Topic{{Name: strings.Repeat("t", size)}}})
		if err != nil {
			t.Fatal(err)
		}
		return in
	}
	decision := func(group string) *assigndv1.Decision {
		return &assigndv1.Decision{GroupId: group, GenerationId: 1, Time: timestamppb.Now(), ProtocolName: "cooperative-sticky"}
	}
	a.RecordInput(decision("small"), input("small", 100))
	a.RecordInput(decision("large"), input("large", 8000))
	shadow := decision("small")
	shadow.Shadow = true
	a.RecordInput(shadow, input("small", 100))

	eventually(t, "b reads a's three records", func() error {
		if _, ds, ok := b.Get("large", 0); !ok || len(ds) != 1 {
			return fmt.Errorf("large not there")
		}
		if len(b.Shadows("small", 0)) != 1 {
			return fmt.Errorf("small's shadow not there")
		}
		return nil
	})
	if ins := b.Inputs("small"); len(ins) != 1 {
		t.Errorf("small: %d inputs shared, want its one (within the cap)", len(ins))
	} else if req, err := ins[0].Decode(); err != nil || req.GetGroupId() != "small" {
		t.Errorf("small's input decodes to %v, %v", req, err)
	}
	if ins := b.Inputs("large"); len(ins) != 0 {
		t.Errorf("large: %d inputs shared, want none (over the cap of 4096 bytes)", len(ins))
	}
	if ins := a.Inputs("large"); len(ins) != 1 {
		t.Errorf("large: the replica that decided keeps %d inputs, want 1", len(ins))
	}
}
