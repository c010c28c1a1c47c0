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
// local fallback, so that both send the same bytes in SyncGroup. Encode
// writes all of them into one buffer; likewise, since a million-partition
// group yields about a million TopicPartitions messages, they are carved
// from one slab instead of being allocated one by one.
func Response(r *assign.Result, policy string, versions map[string]int16, decoded bool) *assigndv1.AssignResponse {
	lists := len(r.Pending)
	if decoded {
		for i := range r.Members {
			lists += len(r.Members[i].Assigned) + len(r.Members[i].Revoked)
		}
	}
	slab := &tpSlab{msgs: make([]assigndv1.TopicPartitions, lists), ptrs: make([]*assigndv1.TopicPartitions, lists)}
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
	}
	out.Pending = slab.lists(r.Pending)
	ms := make([]assigndv1.MemberAssignment, len(r.Members))
	for i := range r.Members {
		m := &r.Members[i]
		pm := &ms[i]
		pm.MemberId = m.ID
		pm.UserData = m.UserData
		if decoded {
			pm.Partitions = slab.lists(m.Assigned)
			pm.Revoked = slab.lists(m.Revoked)
		}
		pm.Assignment = encoded[i]
		out.Assignments[i] = pm
	}
	return out
}

// tpSlab hands out TopicPartitions messages, and the slices of pointers
// to them, from two arrays sized for the whole response.
type tpSlab struct {
	msgs []assigndv1.TopicPartitions
	ptrs []*assigndv1.TopicPartitions
}

// lists converts an engine list. Partition slices are shared.
func (s *tpSlab) lists(in []assign.TopicPartitions) []*assigndv1.TopicPartitions {
	if len(in) == 0 {
		return nil
	}
	n := len(in)
	out := s.ptrs[:n:n]
	for i, tp := range in {
		e := &s.msgs[i]
		e.Topic = tp.Topic
		e.Partitions = tp.Partitions
		out[i] = e
	}
	s.msgs, s.ptrs = s.msgs[n:], s.ptrs[n:]
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
