package server

import (
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// The coefficients of [estimateBytes], in bytes. They bound what one call
// allocates in all, from decoding its request to encoding its response
// (runtime.MemStats.TotalAlloc around one call), on the shapes of
// TestEstimateCoversAllocation, which reports the ratio per shape. Total
// allocation, not the live peak, is the measure: between two collections
// the garbage a call made is as resident as what it keeps.
const (
	// estimateBase covers a call of a handful of members: the engine's
	// fixed tables, the response's headers.
	estimateBase = 32 << 10
	// estimatePerPartition covers one partition of the topic metadata:
	// the engine's per-partition tables, the member's assignment bytes
	// (4 per partition), the decoded view and the marshalled response.
	// A one-member group of 2,000,000 partitions allocates 39 per
	// partition.
	estimatePerPartition = 48
	// estimatePerMember covers a member's engine state and response
	// messages: 20,000 members of one topic allocate 1,155 each,
	// partitions and request bytes included.
	estimatePerMember = 1024
	// estimatePerRequestByte covers what the request's bytes expand into:
	// a subscription entry (3 bytes or more on the wire: tag, length and
	// a name) costs about 55 in the engine, an owned partition in raw
	// metadata (4 bytes) about 40.
	estimatePerRequestByte = 16
	// estimatePerOwned covers an owned partition given as an explicit
	// field, where a packed varint can take a single byte.
	estimatePerOwned = 8
)

// estimateBytes is the memory one Assign call may take, computed from the
// request's shape before any work: partitions (the sum of the topics'
// partition counts), members, the request's size in bytes and the owned
// partitions given as explicit fields. It reads counts and lengths only:
// for the usual 1,000-member request, a few microseconds.
//
// reqBytes is the request's encoded size when the transport reported it;
// otherwise (0) it is computed.
func estimateBytes(req *assigndv1.AssignRequest, reqBytes int) int64 {
	if reqBytes <= 0 {
		reqBytes = proto.Size(req)
	}
	var partitions, owned int64
	for _, t := range req.GetTopics() {
		if n := t.GetPartitionCount(); n > 0 {
			partitions += int64(n)
		}
	}
	for _, m := range req.GetMembers() {
		for _, tp := range m.GetOwnedPartitions() {
			owned += int64(len(tp.GetPartitions()))
		}
	}
	return estimateBase +
		estimatePerPartition*partitions +
		estimatePerMember*int64(len(req.GetMembers())) +
		estimatePerRequestByte*int64(reqBytes) +
		estimatePerOwned*owned
}
