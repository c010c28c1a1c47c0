package assigndv1

import "github.com/assignd/assignd/assign"

// RebalanceProtocolOf converts the engine's rebalance protocol to the API's.
// It is hand-written beside the generated code so that the server, the
// client shim and their tests share one mapping.
func RebalanceProtocolOf(p assign.RebalanceProtocol) RebalanceProtocol {
	switch p {
	case assign.Eager:
		return RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
	case assign.Cooperative:
		return RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE
	}
	return RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED
}

// TopicOf converts the engine's topic metadata to the API's, for clients
// that build requests from it: partition_racks lists the partitions whose
// replica racks are known.
func TopicOf(t assign.Topic) *Topic {
	pt := &Topic{Name: t.Name, PartitionCount: t.Partitions}
	for p, racks := range t.Racks {
		if len(racks) > 0 {
			pt.PartitionRacks = append(pt.PartitionRacks, &PartitionRacks{Partition: int32(p), Racks: racks})
		}
	}
	return pt
}
