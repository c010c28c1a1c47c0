// Package pbwire writes the API's TopicPartitions message straight to
// protobuf wire bytes, exactly as proto.Marshal writes it, for the lists a
// large group has a million of: the full view's partitions and revoked
// lists, and the owned lists of a request the history records.
package pbwire

import "google.golang.org/protobuf/encoding/protowire"

// Field numbers of TopicPartitions (assignment.proto).
const (
	fieldTopic      protowire.Number = 1
	fieldPartitions protowire.Number = 2
)

// AppendTopicPartitions appends a TopicPartitions message of topic and
// partitions as field num of the enclosing message: the topic unless
// empty, the partitions packed unless none, as proto.Marshal does.
func AppendTopicPartitions(b []byte, num protowire.Number, topic string, partitions []int32) []byte {
	packed := packedSize(partitions)
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

// TopicPartitionsSize is the size AppendTopicPartitions appends.
func TopicPartitionsSize(num protowire.Number, topic string, partitions []int32) int {
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
