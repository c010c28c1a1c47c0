package apiconv_test

import (
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
