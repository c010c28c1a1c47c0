package server

import (
	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// response converts the engine's result. versions maps member ids to the
// version each member's assignment is encoded at.
//
// A million-partition group yields about a million TopicPartitions
// messages, so they are carved from one slab, and all encoded assignments
// share one byte buffer, instead of an allocation each.
func response(r *assign.Result, policy string, versions map[string]int16) *assigndv1.AssignResponse {
	lists := len(r.Pending)
	size := 0
	for i := range r.Members {
		m := &r.Members[i]
		lists += len(m.Assigned) + len(m.Revoked)
		size += wire.AssignmentSize(m.Assigned, m.UserData)
	}
	slab := make([]assigndv1.TopicPartitions, lists)
	buf := make([]byte, 0, size)
	out := &assigndv1.AssignResponse{
		Assignments:       make([]*assigndv1.MemberAssignment, len(r.Members)),
		Assignor:          r.Assignor,
		AssignorVersion:   int32(r.Version),
		RebalanceProtocol: rebalanceProtocolOut(r.Protocol),
		FollowupRequired:  r.FollowupRequired,
		Policy:            policy,
		Warnings:          r.Warnings,
	}
	out.Pending, slab = topicPartitionsOut(r.Pending, slab)
	ms := make([]assigndv1.MemberAssignment, len(r.Members))
	for i := range r.Members {
		m := &r.Members[i]
		pm := &ms[i]
		pm.MemberId = m.ID
		pm.UserData = m.UserData
		pm.Partitions, slab = topicPartitionsOut(m.Assigned, slab)
		pm.Revoked, slab = topicPartitionsOut(m.Revoked, slab)
		start := len(buf)
		buf = wire.AppendAssignment(buf, versions[m.ID], m.Assigned, m.UserData)
		pm.Assignment = buf[start:len(buf):len(buf)]
		out.Assignments[i] = pm
	}
	return out
}

// topicPartitionsOut converts an engine list using entries from slab and
// returns the rest of the slab. Partition slices are shared.
func topicPartitionsOut(in []assign.TopicPartitions, slab []assigndv1.TopicPartitions) ([]*assigndv1.TopicPartitions, []assigndv1.TopicPartitions) {
	if len(in) == 0 {
		return nil, slab
	}
	out := make([]*assigndv1.TopicPartitions, len(in))
	for i, tp := range in {
		e := &slab[i]
		e.Topic = tp.Topic
		e.Partitions = tp.Partitions
		out[i] = e
	}
	return out, slab[len(in):]
}

func rebalanceProtocolOut(p assign.RebalanceProtocol) assigndv1.RebalanceProtocol {
	switch p {
	case assign.Eager:
		return assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
	case assign.Cooperative:
		return assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE
	}
	return assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED
}

// assignorInfo describes a runnable assignor for ListAssignors.
func assignorInfo(a assign.Assignor) *assigndv1.AssignorInfo {
	info := &assigndv1.AssignorInfo{Name: a.Name(), Version: int32(a.Version())}
	for _, p := range a.Protocols() {
		info.Protocols = append(info.Protocols, rebalanceProtocolOut(p))
	}
	return info
}
