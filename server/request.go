package server

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// memberForm records how a request member was given, so that errors can
// name the right field and its assignment is encoded at the version its
// client reads.
type memberForm struct {
	// metadata: the member came as raw ConsumerProtocolSubscription bytes.
	metadata bool
	// version is the member's subscription version (wire.MaxVersion for
	// explicit-form members); its assignment is encoded at this version.
	version int16
}

// rebalanceProtocol converts the request's rebalance protocol.
func rebalanceProtocol(p assigndv1.RebalanceProtocol) (assign.RebalanceProtocol, error) {
	switch p {
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED:
		return assign.ProtocolUnspecified, nil
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER:
		return assign.Eager, nil
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE:
		return assign.Cooperative, nil
	}
	return 0, &fieldError{
		field: "rebalance_protocol", reason: assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL,
		desc: fmt.Sprintf("unknown rebalance protocol %d", int32(p)),
	}
}

// checkLimits rejects requests whose topic metadata is larger than the
// server is configured to assign, before anything is allocated for them.
func checkLimits(req *assigndv1.AssignRequest, maxPartitions int64) error {
	var total int64
	for _, t := range req.GetTopics() {
		if n := t.GetPartitionCount(); n > 0 {
			total += int64(n)
		}
	}
	if maxPartitions > 0 && total > maxPartitions {
		return &limitError{what: "partitions", limit: maxPartitions, got: total}
	}
	return nil
}

// topics converts the leader's topic metadata. Partition racks become the
// engine's one-entry-per-partition form; partitions not listed get none.
func topics(req *assigndv1.AssignRequest) ([]assign.Topic, error) {
	in := req.GetTopics()
	out := make([]assign.Topic, len(in))
	for i, t := range in {
		out[i] = assign.Topic{Name: t.GetName(), Partitions: t.GetPartitionCount()}
		prs := t.GetPartitionRacks()
		if len(prs) == 0 || t.GetPartitionCount() < 0 {
			continue // a negative count is the engine's to reject
		}
		racks := make([][]string, t.GetPartitionCount())
		seen := make([]bool, len(racks))
		for j, pr := range prs {
			p := pr.GetPartition()
			if p < 0 || int(p) >= len(racks) {
				return nil, &fieldError{
					field: fmt.Sprintf("topics[%d].partition_racks[%d].partition", i, j), reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
					desc: fmt.Sprintf("partition %d of topic %q is outside 0..%d", p, clip(t.GetName()), len(racks)-1),
				}
			}
			if seen[p] {
				return nil, &fieldError{
					field: fmt.Sprintf("topics[%d].partition_racks[%d].partition", i, j), reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
					desc: fmt.Sprintf("partition %d of topic %q is listed more than once", p, clip(t.GetName())),
				}
			}
			seen[p] = true
			racks[p] = pr.GetRacks()
		}
		out[i].Racks = racks
	}
	return out, nil
}

// members converts the request's members. Raw subscriptions are decoded
// with one Decoder for the whole request, so that the topic names the
// members share are allocated once and compare as the same string.
func members(req *assigndv1.AssignRequest) ([]assign.Member, []memberForm, error) {
	in := req.GetMembers()
	out := make([]assign.Member, len(in))
	forms := make([]memberForm, len(in))
	var dec wire.Decoder
	for i, m := range in {
		out[i] = assign.Member{ID: m.GetMemberId(), InstanceID: m.GetGroupInstanceId()}
		if field := explicitField(m); len(m.GetMetadata()) > 0 && field != "" {
			return nil, nil, &fieldError{
				field: fmt.Sprintf("members[%d].%s", i, field), member: m.GetMemberId(),
				reason: assigndv1.ErrorReason_ERROR_REASON_CONFLICTING_MEMBER_FIELDS,
				desc:   fmt.Sprintf("metadata and %s are both set; give either the raw metadata or the fields 4 to 8", field),
			}
		}
		if len(m.GetMetadata()) > 0 {
			sub, err := dec.Subscription(m.GetMetadata())
			if err != nil {
				return nil, nil, metadataError(i, m.GetMemberId(), err)
			}
			out[i].Topics = sub.Topics
			out[i].Owned = sub.Owned
			out[i].UserData = sub.UserData
			out[i].Generation = sub.Generation
			out[i].Rack = sub.Rack
			forms[i] = memberForm{metadata: true, version: min(sub.Version, wire.MaxVersion)}
			continue
		}
		out[i].Topics = m.GetTopics()
		out[i].Owned = topicPartitionsIn(m.GetOwnedPartitions())
		out[i].UserData = m.GetUserData()
		out[i].Generation = assign.NoGeneration
		if m.Generation != nil {
			out[i].Generation = m.GetGeneration()
		}
		out[i].Rack = m.GetRackId()
		forms[i] = memberForm{version: wire.MaxVersion}
	}
	return out, forms, nil
}

// explicitField names the first of fields 4 to 8 that m sets, or "".
func explicitField(m *assigndv1.Member) string {
	switch {
	case len(m.GetTopics()) > 0:
		return "topics"
	case len(m.GetOwnedPartitions()) > 0:
		return "owned_partitions"
	case len(m.GetUserData()) > 0:
		return "user_data"
	case m.Generation != nil:
		return "generation"
	case m.RackId != nil:
		return "rack_id"
	}
	return ""
}

// topicPartitionsIn converts a proto list to the engine's; the partition
// slices are shared, not copied.
func topicPartitionsIn(in []*assigndv1.TopicPartitions) []assign.TopicPartitions {
	if len(in) == 0 {
		return nil
	}
	out := make([]assign.TopicPartitions, len(in))
	for i, tp := range in {
		out[i] = assign.TopicPartitions{Topic: tp.GetTopic(), Partitions: tp.GetPartitions()}
	}
	return out
}
