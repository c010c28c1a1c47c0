package apiconv

import (
	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/leader"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// ProtocolToAPI converts the engine's rebalance protocol to the API's.
func ProtocolToAPI(p assign.RebalanceProtocol) assigndv1.RebalanceProtocol {
	switch p {
	case assign.Eager:
		return assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
	case assign.Cooperative:
		return assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE
	}
	return assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED
}

// TopicToAPI converts the engine's topic metadata to the API's, for clients
// that build requests from it: partition_racks lists the partitions whose
// replica racks are known.
func TopicToAPI(t assign.Topic) *assigndv1.Topic {
	pt := &assigndv1.Topic{Name: t.Name, PartitionCount: t.Partitions}
	for p, racks := range t.Racks {
		if len(racks) > 0 {
			pt.PartitionRacks = append(pt.PartitionRacks, &assigndv1.PartitionRacks{Partition: int32(p), Racks: racks})
		}
	}
	return pt
}

// MemberToAPI writes a member in the explicit form (Member's fields 4 to
// 8), as leaders that do not send the raw subscription do.
func MemberToAPI(m assign.Member) *assigndv1.Member {
	pm := &assigndv1.Member{MemberId: m.ID, Topics: m.Topics, UserData: m.UserData}
	if m.InstanceID != "" {
		pm.GroupInstanceId = &m.InstanceID
	}
	if m.Rack != "" {
		pm.RackId = &m.Rack
	}
	for _, tp := range m.Owned {
		pm.OwnedPartitions = append(pm.OwnedPartitions, &assigndv1.TopicPartitions{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	if m.Generation != assign.NoGeneration {
		pm.Generation = &m.Generation
	}
	return pm
}

// AssignorInfo describes a runnable assignor for ListAssignors.
func AssignorInfo(a assign.Assignor) *assigndv1.AssignorInfo {
	info := &assigndv1.AssignorInfo{Name: a.Name(), Version: int32(a.Version())}
	for _, p := range a.Protocols() {
		info.Protocols = append(info.Protocols, ProtocolToAPI(p))
	}
	return info
}

// Response converts the engine's result. versions maps member ids to the
// version each member's assignment is encoded at; decoded adds each
// member's partitions and revoked lists (ASSIGNMENT_VIEW_FULL) to the
// encoded assignment; policy names the policy that chose the assignor.
//
// The assignment bytes come from [leader.Encode], as in the client shim's
// local fallback, so that both send the same bytes in SyncGroup. The
// partitions and revoked lists of the full view are already wire bytes
// (see fullView): they are what a client reads once the response is
// marshalled, and are not in the MemberAssignment messages' fields.
func Response(r *assign.Result, policy string, versions map[string]int16, decoded bool) *assigndv1.AssignResponse {
	encoded := leader.Encode(r, versions)
	out := &assigndv1.AssignResponse{
		Assignments:       make([]*assigndv1.MemberAssignment, len(r.Members)),
		Assignor:          r.Assignor,
		AssignorVersion:   int32(r.Version),
		RebalanceProtocol: ProtocolToAPI(r.Protocol),
		FollowupRequired:  r.FollowupRequired,
		Policy:            policy,
		Warnings:          r.Warnings,
		MoveReasons:       MoveReasonsToAPI(&r.Stats.Reasons),
		Moves:             MovesToAPI(r.Moves),
		Pending:           topicPartitionsToAPI(r.Pending),
	}
	ms := make([]assigndv1.MemberAssignment, len(r.Members))
	for i := range r.Members {
		m := &r.Members[i]
		pm := &ms[i]
		pm.MemberId = m.ID
		pm.UserData = m.UserData
		pm.Assignment = encoded[i]
		out.Assignments[i] = pm
	}
	if decoded {
		fullView(r, ms)
	}
	return out
}

// topicPartitionsToAPI converts an engine list; the partition slices are
// shared.
func topicPartitionsToAPI(in []assign.TopicPartitions) []*assigndv1.TopicPartitions {
	if len(in) == 0 {
		return nil
	}
	msgs := make([]assigndv1.TopicPartitions, len(in))
	out := make([]*assigndv1.TopicPartitions, len(in))
	for i, tp := range in {
		e := &msgs[i]
		e.Topic, e.Partitions = tp.Topic, tp.Partitions
		out[i] = e
	}
	return out
}

// LoadToAPI fills the response's load-aware fields from the result: the
// weight source (source, where the group's weights came from), the
// snapshot and the load summary in unit, or WEIGHT_SOURCE_NONE when the
// assignor planned by counts.
func LoadToAPI(out *assigndv1.AssignResponse, r *assign.Result, unit string, source assigndv1.WeightSource) {
	if r.Load == nil {
		out.WeightSource = assigndv1.WeightSource_WEIGHT_SOURCE_NONE
		return
	}
	out.WeightSource = source
	out.WeightSnapshot = r.Load.Snapshot
	out.Load = &assigndv1.LoadSummary{Total: r.Load.Total, Max: r.Load.Max, Mean: r.Load.Mean, Bound: r.Load.Bound, Unit: unit}
}
