package server_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// TestFranzGoWireCompatibility drives the service as a franz-go leader
// would: subscriptions encoded by franz-go's own kmsg codec go in, and the
// assignment bytes that come out must decode with kmsg to exactly the
// partitions the response lists, at the member's subscription version.
func TestFranzGoWireCompatibility(t *testing.T) {
	ts := startServer(t, nil)
	req := &assigndv1.AssignRequest{
		GroupId: "franz", GenerationId: 7, ProtocolName: "cooperative-sticky",
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
		Topics:            []*assigndv1.Topic{{Name: "a", PartitionCount: 8}, {Name: "b", PartitionCount: 4}},
	}
	rack := "r1"
	for i := range int16(4) {
		md := kmsg.NewConsumerMemberMetadata()
		md.Version = i
		md.Topics = []string{"a", "b"}
		md.UserData = []byte{0, 0, 0, 6} // cooperative-sticky's generation user data
		if i >= 1 && i%2 == 1 {
			md.OwnedPartitions = []kmsg.ConsumerMemberMetadataOwnedPartition{
				{Topic: "a", Partitions: []int32{int32(2 * i), int32(2*i + 1)}},
				{Topic: "b", Partitions: []int32{int32(i)}},
			}
		}
		md.Generation = 6
		if i == 3 {
			md.Rack = &rack
		}
		req.Members = append(req.Members, &assigndv1.Member{MemberId: fmt.Sprintf("member-%d", i), Metadata: md.AppendTo(nil)})
	}
	resp, err := ts.client.Assign(callCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for i, a := range resp.GetAssignments() {
		var got kmsg.ConsumerMemberAssignment
		if err := got.ReadFrom(a.GetAssignment()); err != nil {
			t.Fatalf("%s: kmsg cannot read the assignment: %v", a.GetMemberId(), err)
		}
		if got.Version != int16(i) {
			t.Errorf("%s: assignment version %d, want %d", a.GetMemberId(), got.Version, i)
		}
		if len(got.Topics) != len(a.GetPartitions()) {
			t.Fatalf("%s: kmsg topics %v, response %v", a.GetMemberId(), got.Topics, a.GetPartitions())
		}
		for j, tp := range got.Topics {
			if tp.Topic != a.GetPartitions()[j].GetTopic() || !slices.Equal(tp.Partitions, a.GetPartitions()[j].GetPartitions()) {
				t.Errorf("%s: kmsg %v, response %v", a.GetMemberId(), got.Topics, a.GetPartitions())
			}
			total += len(tp.Partitions)
		}
	}
	pending := 0
	for _, tp := range resp.GetPending() {
		pending += len(tp.GetPartitions())
	}
	if total+pending != 12 {
		t.Errorf("%d assigned + %d pending, want all 12 partitions", total, pending)
	}
}
