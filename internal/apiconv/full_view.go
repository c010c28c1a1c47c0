package apiconv

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Field numbers of the full view's lists, written here as wire bytes.
const (
	fieldAssigned   protowire.Number = 2 // MemberAssignment.partitions
	fieldRevoked    protowire.Number = 5 // MemberAssignment.revoked
	fieldTopic      protowire.Number = 1 // TopicPartitions.topic
	fieldPartitions protowire.Number = 2 // TopicPartitions.partitions
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
		size += listsSize(fieldAssigned, r.Members[i].Assigned) + listsSize(fieldRevoked, r.Members[i].Revoked)
	}
	buf := make([]byte, 0, size)
	for i := range r.Members {
		start := len(buf)
		buf = appendLists(buf, fieldAssigned, r.Members[i].Assigned)
		buf = appendLists(buf, fieldRevoked, r.Members[i].Revoked)
		if len(buf) > start {
			ms[i].ProtoReflect().SetUnknown(protoreflect.RawFields(buf[start:len(buf):len(buf)]))
		}
	}
}

// appendLists appends tps as the repeated TopicPartitions field num.
func appendLists(b []byte, num protowire.Number, tps []assign.TopicPartitions) []byte {
	for _, tp := range tps {
		b = appendTopicPartitions(b, num, tp.Topic, tp.Partitions)
	}
	return b
}

// listsSize is the size appendLists appends.
func listsSize(num protowire.Number, tps []assign.TopicPartitions) int {
	n := 0
	for _, tp := range tps {
		n += topicPartitionsSize(num, tp.Topic, tp.Partitions)
	}
	return n
}

// appendTopicPartitions appends a TopicPartitions message of topic and
// partitions as field num of the enclosing message: the topic unless
// empty, the partitions packed unless none, as proto.Marshal does.
func appendTopicPartitions(b []byte, num protowire.Number, topic string, partitions []int32) []byte {
	packed := packedSize(partitions)
	if size := messageSize(topic, packed); num < 16 && size < 0x80 && topic != "" && packed > 0 {
		// The usual list of a large group (a topic name and a few
		// partitions): every tag and length one byte, written at once.
		b = append(b, byte(num)<<3|byte(protowire.BytesType), byte(size),
			byte(fieldTopic)<<3|byte(protowire.BytesType), byte(len(topic)))
		b = append(b, topic...)
		b = append(b, byte(fieldPartitions)<<3|byte(protowire.BytesType), byte(packed))
		for _, p := range partitions {
			b = appendInt32(b, p)
		}
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(messageSize(topic, packed)))
	if topic != "" {
		b = protowire.AppendTag(b, fieldTopic, protowire.BytesType)
		b = protowire.AppendString(b, topic)
	}
	if packed > 0 {
		b = protowire.AppendTag(b, fieldPartitions, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(packed))
		for _, p := range partitions {
			b = appendInt32(b, p)
		}
	}
	return b
}

// topicPartitionsSize is the size appendTopicPartitions appends.
func topicPartitionsSize(num protowire.Number, topic string, partitions []int32) int {
	return protowire.SizeTag(num) + protowire.SizeBytes(messageSize(topic, packedSize(partitions)))
}

func messageSize(topic string, packed int) int {
	n := 0
	if topic != "" {
		n += protowire.SizeTag(fieldTopic) + protowire.SizeBytes(len(topic))
	}
	if packed > 0 {
		n += protowire.SizeTag(fieldPartitions) + protowire.SizeBytes(packed)
	}
	return n
}

func packedSize(ps []int32) int {
	n := 0
	for _, p := range ps {
		if uint32(p) < 0x80 {
			n++
			continue
		}
		n += protowire.SizeVarint(uint64(int64(p)))
	}
	return n
}

// appendInt32 appends p as protobuf writes an int32: the varint of its
// 64-bit sign extension. Partitions below 128 and 16,384, nearly all of
// them, take the short ways.
func appendInt32(b []byte, p int32) []byte {
	switch {
	case uint32(p) < 1<<7:
		return append(b, byte(p))
	case uint32(p) < 1<<14:
		return append(b, byte(p)|0x80, byte(p>>7))
	}
	return protowire.AppendVarint(b, uint64(int64(p)))
}
