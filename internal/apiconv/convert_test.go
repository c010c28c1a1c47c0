package apiconv_test

import (
	"errors"
	"reflect"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

func TestTopicToAPI(t *testing.T) {
	got := apiconv.TopicToAPI(assign.Topic{Name: "orders", Partitions: 4, Racks: [][]string{{"az1"}, nil, {}, {"az2", "az3"}}})
	want := &assigndv1.Topic{Name: "orders", PartitionCount: 4, PartitionRacks: []*assigndv1.PartitionRacks{
		{Partition: 0, Racks: []string{"az1"}},
		{Partition: 3, Racks: []string{"az2", "az3"}},
	}}
	if !proto.Equal(got, want) {
		t.Errorf("TopicToAPI = %v, want %v", got, want)
	}
	if got := apiconv.TopicToAPI(assign.Topic{Name: "t", Partitions: 2}); got.GetPartitionRacks() != nil {
		t.Errorf("a topic without racks got partition_racks %v", got.GetPartitionRacks())
	}
}

func TestProtocolToAPI(t *testing.T) {
	for in, want := range map[assign.RebalanceProtocol]assigndv1.RebalanceProtocol{
		assign.Eager:               assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER,
		assign.Cooperative:         assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
		assign.ProtocolUnspecified: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED,
	} {
		if got := apiconv.ProtocolToAPI(in); got != want {
			t.Errorf("ProtocolToAPI(%v) = %v, want %v", in, got, want)
		}
	}
}

func TestProtocolFromAPIRoundTrip(t *testing.T) {
	for _, p := range []assign.RebalanceProtocol{assign.ProtocolUnspecified, assign.Eager, assign.Cooperative} {
		got, err := apiconv.ProtocolFromAPI(apiconv.ProtocolToAPI(p))
		if err != nil || got != p {
			t.Errorf("ProtocolFromAPI(ProtocolToAPI(%v)) = %v, %v", p, got, err)
		}
	}
	var fe *apiconv.FieldError
	if _, err := apiconv.ProtocolFromAPI(99); !errors.As(err, &fe) || fe.Field != "rebalance_protocol" {
		t.Errorf("ProtocolFromAPI(99) = %v, want a FieldError on rebalance_protocol", err)
	}
}

func TestTopicsFromAPIRoundTrip(t *testing.T) {
	in := assign.Topic{Name: "orders", Partitions: 4, Racks: [][]string{{"az1"}, nil, nil, {"az2", "az3"}}}
	got, err := apiconv.TopicsFromAPI([]*assigndv1.Topic{apiconv.TopicToAPI(in)})
	if err != nil || len(got) != 1 || !reflect.DeepEqual(got[0], in) {
		t.Errorf("TopicsFromAPI(TopicToAPI(%v)) = %v, %v", in, got, err)
	}
}
