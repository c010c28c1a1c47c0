package apiconv

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Field numbers of the full view's lists, written here as wire bytes.
const (
	fieldPartitions protowire.Number = 2 // MemberAssignment.partitions
	fieldRevoked    protowire.Number = 5 // MemberAssignment.revoked
	fieldTopic      protowire.Number = 1 // TopicPartitions.topic
	fieldPartition  protowire.Number = 2 // TopicPartitions.partitions
)

// fullView writes each member's partitions and revoked lists, as
// MemberAssignment's fields 2 and 5, into the unknown fields of ms, which
// the proto marshaller copies out as they are: a client reads them as the
// fields they are. A million-partition group has about a million of these
// lists; as messages they were most of the response's building, of its
// marshalling and of the memory the call touched. All the members' bytes
// share one buffer.
func fullView(r *assign.Result, ms []assigndv1.MemberAssignment) {
	size := 0
	for i := range r.Members {
		size += listsSize(fieldPartitions, r.Members[i].Assigned) + listsSize(fieldRevoked, r.Members[i].Revoked)
	}
	buf := make([]byte, 0, size)
	for i := range r.Members {
		start := len(buf)
		buf = appendLists(buf, fieldPartitions, r.Members[i].Assigned)
		buf = appendLists(buf, fieldRevoked, r.Members[i].Revoked)
		if len(buf) > start {
			ms[i].ProtoReflect().SetUnknown(protoreflect.RawFields(buf[start:len(buf):len(buf)]))
		}
	}
}

// appendLists appends tps as the repeated TopicPartitions field num,
// encoded as proto.Marshal encodes it: the topic unless empty, the
// partitions packed unless none.
func appendLists(b []byte, num protowire.Number, tps []assign.TopicPartitions) []byte {
	for _, tp := range tps {
		packed := packedSize(tp.Partitions)
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(topicPartitionsSize(tp.Topic, packed)))
		if tp.Topic != "" {
			b = protowire.AppendTag(b, fieldTopic, protowire.BytesType)
			b = protowire.AppendString(b, tp.Topic)
		}
		if packed > 0 {
			b = protowire.AppendTag(b, fieldPartition, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(packed))
			for _, p := range tp.Partitions {
				// An int32 is a varint of its 64-bit sign extension.
				b = protowire.AppendVarint(b, uint64(int64(p)))
			}
		}
	}
	return b
}

// listsSize is the size appendLists appends.
func listsSize(num protowire.Number, tps []assign.TopicPartitions) int {
	n := 0
	for _, tp := range tps {
		inner := topicPartitionsSize(tp.Topic, packedSize(tp.Partitions))
		n += protowire.SizeTag(num) + protowire.SizeBytes(inner)
	}
	return n
}

// topicPartitionsSize is the size of a TopicPartitions message of topic,
// with packed bytes of partitions.
func topicPartitionsSize(topic string, packed int) int {
	n := 0
	if topic != "" {
		n += protowire.SizeTag(fieldTopic) + protowire.SizeBytes(len(topic))
	}
	if packed > 0 {
		n += protowire.SizeTag(fieldPartition) + protowire.SizeBytes(packed)
	}
	return n
}

func packedSize(ps []int32) int {
	n := 0
	for _, p := range ps {
		n += protowire.SizeVarint(uint64(int64(p)))
	}
	return n
}
