package apiconv

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	clipx "github.com/assignd/assignd/internal/clip"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// FieldError is a request field that cannot be converted.
type FieldError struct {
	// Field is the path in the request, e.g. "rebalance_protocol" or
	// "topics[0].partition_racks[2].partition".
	Field  string
	Reason assigndv1.ErrorReason
	// Desc says what is wrong, quoting at most a clipped topic name.
	Desc string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Desc }

// ProtocolFromAPI converts a request's rebalance protocol.
func ProtocolFromAPI(p assigndv1.RebalanceProtocol) (assign.RebalanceProtocol, error) {
	switch p {
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED:
		return assign.ProtocolUnspecified, nil
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER:
		return assign.Eager, nil
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE:
		return assign.Cooperative, nil
	}
	return 0, &FieldError{
		Field: "rebalance_protocol", Reason: assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL,
		Desc: fmt.Sprintf("unknown rebalance protocol %d", int32(p)),
	}
}

// TopicsFromAPI converts the leader's topic metadata. Partition racks
// become the engine's one-entry-per-partition form; partitions not listed
// get none. A negative partition count passes through: it is the engine's
// to reject.
func TopicsFromAPI(in []*assigndv1.Topic) ([]assign.Topic, error) {
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
			if p < 0 || int(p) >= len(racks) {
				return nil, &FieldError{
					Field: fmt.Sprintf("topics[%d].partition_racks[%d].partition", i, j), Reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
					Desc: fmt.Sprintf("partition %d of topic %q is outside 0..%d", p, clip(t.GetName()), len(racks)-1),
				}
			}
			if seen[p] {
				return nil, &FieldError{
					Field: fmt.Sprintf("topics[%d].partition_racks[%d].partition", i, j), Reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
					Desc: fmt.Sprintf("partition %d of topic %q is listed more than once", p, clip(t.GetName())),
				}
			}
			seen[p] = true
			racks[p] = pr.GetRacks()
		}
		out[i].Racks = racks
	}
	return out, nil
}

// MemberFromAPI converts a member given field by field (fields 4 to 8 of
// Member). A member given as raw metadata is decoded by
// [leader.Decode] instead.
func MemberFromAPI(m *assigndv1.Member) assign.Member {
	out := assign.Member{
		ID: m.GetMemberId(), InstanceID: m.GetGroupInstanceId(),
		Topics: m.GetTopics(), Owned: TopicPartitionsFromAPI(m.GetOwnedPartitions()), UserData: m.GetUserData(),
		Generation: assign.NoGeneration, Rack: m.GetRackId(),
	}
	if m.Generation != nil {
		out.Generation = m.GetGeneration()
	}
	return out
}

// TopicPartitionsFromAPI converts an API list to the engine's; the
// partition slices are shared, not copied.
func TopicPartitionsFromAPI(in []*assigndv1.TopicPartitions) []assign.TopicPartitions {
	if len(in) == 0 {
		return nil
	}
	out := make([]assign.TopicPartitions, len(in))
	for i, tp := range in {
		out[i] = assign.TopicPartitions{Topic: tp.GetTopic(), Partitions: tp.GetPartitions()}
	}
	return out
}

// clip shortens a client-supplied name quoted in a message, as the server
// clips what it quotes.
func clip(s string) string { return clipx.String(s, clipx.Short) }

// WeightsFromAPI converts the request's partition weights; the weight
// slices are shared, not copied. The engine validates them.
func WeightsFromAPI(in []*assigndv1.PartitionWeights) []assign.TopicWeights {
	if len(in) == 0 {
		return nil
	}
	out := make([]assign.TopicWeights, len(in))
	for i, pw := range in {
		out[i] = assign.TopicWeights{Topic: pw.GetTopic(), Weights: pw.GetWeights()}
	}
	return out
}
