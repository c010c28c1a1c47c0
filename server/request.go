package server

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/leader"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

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

// decodedView reports whether the response carries each member's
// partitions and revoked lists besides the encoded assignment.
func decodedView(v assigndv1.AssignmentView) (bool, error) {
	switch v {
	case assigndv1.AssignmentView_ASSIGNMENT_VIEW_UNSPECIFIED, assigndv1.AssignmentView_ASSIGNMENT_VIEW_FULL:
		return true, nil
	case assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED:
		return false, nil
	}
	return false, &fieldError{
		field: "view", reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
		desc: fmt.Sprintf("unknown assignment view %d", int32(v)),
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

// members converts the request's members into g.Members, in request
// order. It returns the version each member's assignment is encoded at, by
// member id, and which members (by request index) came as raw metadata, so
// that errors name the right field.
//
// Raw subscriptions are decoded by leader.Decode, the codec the client
// shim's local fallback uses too, so that the service and the fallback
// read the same bytes the same way by construction. Decode sees the
// raw-metadata members only (in the usual request, all of them, and its
// members are then used as they are); explicit-form members are converted
// here, get the highest version, and are merged back in request order.
func members(req *assigndv1.AssignRequest, g *assign.Group) (map[string]int16, []bool, error) {
	in := req.GetMembers()
	raw := make([]bool, len(in))
	joined := make([]leader.JoinedMember, 0, len(in))
	for i, m := range in {
		if len(m.GetMetadata()) == 0 {
			continue
		}
		if field := explicitField(m); field != "" {
			return nil, nil, &fieldError{
				field: fmt.Sprintf("members[%d].%s", i, field), member: m.GetMemberId(),
				reason: assigndv1.ErrorReason_ERROR_REASON_CONFLICTING_MEMBER_FIELDS,
				desc:   fmt.Sprintf("metadata and %s are both set; give either the raw metadata or the fields 4 to 8", field),
			}
		}
		raw[i] = true
		joined = append(joined, leader.JoinedMember{ID: m.GetMemberId(), InstanceID: m.GetGroupInstanceId(), Metadata: m.GetMetadata()})
	}
	var versions map[string]int16
	var decoded []assign.Member
	if len(joined) > 0 {
		d, err := leader.Decode(joined, g.Topics, g.Generation, g.Protocol)
		if err != nil {
			return nil, nil, metadataError(err, in, raw)
		}
		if len(joined) == len(in) {
			g.Members = d.Group.Members
			return d.Versions, raw, nil
		}
		versions, decoded = d.Versions, d.Group.Members
	} else {
		versions = make(map[string]int16, len(in))
	}
	g.Members = make([]assign.Member, len(in))
	for i, m := range in {
		if raw[i] {
			g.Members[i], decoded = decoded[0], decoded[1:]
			continue
		}
		g.Members[i] = explicitMember(m)
		versions[m.GetMemberId()] = wire.MaxVersion
	}
	return versions, raw, nil
}

// explicitMember converts a member given field by field (fields 4 to 8).
func explicitMember(m *assigndv1.Member) assign.Member {
	out := assign.Member{
		ID: m.GetMemberId(), InstanceID: m.GetGroupInstanceId(),
		Topics: m.GetTopics(), Owned: topicPartitionsIn(m.GetOwnedPartitions()), UserData: m.GetUserData(),
		Generation: assign.NoGeneration, Rack: m.GetRackId(),
	}
	if m.Generation != nil {
		out.Generation = m.GetGeneration()
	}
	return out
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
