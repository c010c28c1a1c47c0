package request

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

// Protocol converts a rebalance protocol of the API (a request's, or a
// recorded decision's).
func Protocol(p assigndv1.RebalanceProtocol) (assign.RebalanceProtocol, error) {
	switch p {
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED:
		return assign.ProtocolUnspecified, nil
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER:
		return assign.Eager, nil
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE:
		return assign.Cooperative, nil
	}
	return 0, &rpcerr.FieldError{
		Field: "rebalance_protocol", Reason: assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL,
		Desc: fmt.Sprintf("unknown rebalance protocol %d", int32(p)),
	}
}

// topics converts the leader's topic metadata. Partition racks become the
// engine's one-entry-per-partition form; partitions not listed get none.
// A negative partition count passes through: it is the engine's to
// reject.
func topics(in []*assigndv1.Topic) ([]assign.Topic, error) {
	out := make([]assign.Topic, len(in))
	for i, t := range in {
		out[i] = assign.Topic{Name: t.GetName(), Partitions: t.GetPartitionCount()}
		prs := t.GetPartitionRacks()
		if len(prs) == 0 || t.GetPartitionCount() < 0 {
			continue
		}
		racks := make([][]string, t.GetPartitionCount())
		seen := make([]bool, len(racks))
		for j, pr := range prs {
			p := pr.GetPartition()
			var problem string
			switch {
			case p < 0 || int(p) >= len(racks):
				problem = fmt.Sprintf("partition %d of topic %q is outside 0..%d", p, rpcerr.Clip(t.GetName()), len(racks)-1)
			case seen[p]:
				problem = fmt.Sprintf("partition %d of topic %q is listed more than once", p, rpcerr.Clip(t.GetName()))
			}
			if problem != "" {
				return nil, &rpcerr.FieldError{
					Field:  fmt.Sprintf("topics[%d].partition_racks[%d].partition", i, j),
					Reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP, Desc: problem,
				}
			}
			seen[p] = true
			racks[p] = pr.GetRacks()
		}
		out[i].Racks = racks
	}
	return out, nil
}

// member converts a member given field by field (fields 4 to 8 of
// Member). A member given as raw metadata is decoded by leader.Decode
// instead.
func member(m *assigndv1.Member) assign.Member {
	out := assign.Member{
		ID: m.GetMemberId(), InstanceID: m.GetGroupInstanceId(),
		Topics: m.GetTopics(), Owned: topicPartitions(m.GetOwnedPartitions()), UserData: m.GetUserData(),
		Generation: assign.NoGeneration, Rack: m.GetRackId(),
	}
	if m.Generation != nil {
		out.Generation = m.GetGeneration()
	}
	return out
}

// topicPartitions converts an API list to the engine's; the partition
// slices are shared, not copied.
func topicPartitions(in []*assigndv1.TopicPartitions) []assign.TopicPartitions {
	if len(in) == 0 {
		return nil
	}
	out := make([]assign.TopicPartitions, len(in))
	for i, tp := range in {
		out[i] = assign.TopicPartitions{Topic: tp.GetTopic(), Partitions: tp.GetPartitions()}
	}
	return out
}

// weights converts the request's partition weights; the weight slices are
// shared, not copied. The engine validates them.
func weights(in []*assigndv1.PartitionWeights) []assign.TopicWeights {
	if len(in) == 0 {
		return nil
	}
	out := make([]assign.TopicWeights, len(in))
	for i, pw := range in {
		out[i] = assign.TopicWeights{Topic: pw.GetTopic(), Weights: pw.GetWeights()}
	}
	return out
}
