package request

import (
	"encoding/binary"

	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// The coefficients of [EstimateBytes], in bytes. They bound what one call
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
	// A one-member group of 1,000,000 partitions allocates 39 per
	// partition.
	estimatePerPartition = 48
	// estimatePerMember covers a member's engine state and response
	// messages: 20,000 members of one topic allocate 1,155 each,
	// partitions and request bytes included.
	estimatePerMember = 1024
	// estimatePerSubscription covers a (member, topic) subscription entry
	// as the request's decoding and the engine hold it: about 40 (the
	// decoder shares topic names, [Unmarshal]).
	estimatePerSubscription = 48
	// estimatePerAssignedTopic covers a (member, topic) entry of the
	// result: the engine's list, the encoded assignment's topic header and
	// the decoded view's TopicPartitions message, about 150. There are at
	// most as many as subscriptions and as partitions.
	estimatePerAssignedTopic = 192
	// estimatePerRequestByte covers what the request's bytes expand
	// into beyond the entries above: names, user data, ids, and owned
	// partitions in raw metadata (4 bytes each on the wire, and covered
	// by the partition term when each is owned once).
	estimatePerRequestByte = 8
	// estimatePerWeight covers, beyond the request-byte term's 64 (a
	// weight is 8 bytes on the wire), what load-sticky allocates per
	// weighted partition: the weight table, the member lists, the sort of
	// what it places. A one-member group of 1,000,000 weighted
	// partitions, all placed, allocates 113 per partition in all.
	estimatePerWeight = 32
	// estimatePerOwned covers an owned partition given as an explicit
	// field (a packed varint of one or two bytes): members owning parts
	// of many topics cost the cooperative assignors' owner tables about
	// 76 per owned partition.
	estimatePerOwned = 64
	// estimatePerOwnedTopic covers a (member, topic) entry of explicit
	// owned partitions as the response's revocation lists may repeat it:
	// an assignor that is not sticky (kip848-range@1) revokes what a
	// member owned of most topics, and the engine's list, the decoded
	// view's TopicPartitions message and the encoded assignment take
	// about 140 per entry (TestEstimateCoversKIP848Assignors).
	estimatePerOwnedTopic = 160
	// estimatePerListedMove covers a partition listed with its reason
	// (move_detail_limit): the engine's Move and the response's
	// PartitionMove message and pointer, about 130.
	estimatePerListedMove = 160
)

// requestByteCost is what decoding copies of a request of reqBytes bytes
// (estimatePerRequestByte each); reqBytes is its encoded size when the
// transport reported it, else 0, and it is computed.
func requestByteCost(req proto.Message, reqBytes int) int64 {
	if reqBytes <= 0 {
		reqBytes = proto.Size(req)
	}
	return estimatePerRequestByte * int64(reqBytes)
}

// EstimateBytes is the memory one Assign call may take, computed from the
// request's shape before any work: partitions (the sum of the topics'
// partition counts), members, subscription entries (members × their
// topics), owned partitions given as explicit fields, and the request's
// size in bytes. It reads counts and lengths only: for the usual
// 1,000-member request, a few microseconds.
//
// reqBytes is the request's encoded size when the transport reported it;
// otherwise (0) it is computed.
func EstimateBytes(req *assigndv1.AssignRequest, reqBytes int) int64 {
	var partitions, subscriptions, owned, ownedTopics, weights int64
	for _, t := range req.GetTopics() {
		if n := t.GetPartitionCount(); n > 0 {
			partitions += int64(n)
		}
	}
	for _, pw := range req.GetPartitionWeights() {
		weights += int64(len(pw.GetWeights()))
	}
	for _, m := range req.GetMembers() {
		if md := m.GetMetadata(); len(md) > 0 {
			subscriptions += subscribedTopics(md)
			continue
		}
		subscriptions += int64(len(m.GetTopics()))
		ownedTopics += int64(len(m.GetOwnedPartitions()))
		for _, tp := range m.GetOwnedPartitions() {
			owned += int64(len(tp.GetPartitions()))
		}
	}
	return estimateBase +
		estimatePerPartition*partitions +
		estimatePerMember*int64(len(req.GetMembers())) +
		estimatePerSubscription*subscriptions +
		estimatePerAssignedTopic*min(subscriptions, partitions) +
		requestByteCost(req, reqBytes) +
		estimatePerOwned*owned +
		estimatePerOwnedTopic*ownedTopics +
		estimatePerListedMove*min(int64(max(req.GetMoveDetailLimit(), 0)), partitions, MaxMoveDetail) +
		estimatePerWeight*weights
}

// subscribedTopics is the topic count of a raw ConsumerProtocolSubscription
// (KIP-429's v1 and later keep v0's head: an INT16 version, then the topics
// as an INT32-counted array of STRING), at most what the bytes can hold
// (a topic takes 2 bytes at least). Malformed metadata counts what it
// claims, within that bound; the decoder rejects it later.
func subscribedTopics(md []byte) int64 {
	if len(md) < 6 {
		return 0
	}
	n := int64(int32(binary.BigEndian.Uint32(md[2:6])))
	return max(0, min(n, int64(len(md)-6)/2))
}
