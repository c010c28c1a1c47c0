// Package wire encodes and decodes the Kafka consumer protocol: the
// ConsumerProtocolSubscription a member sends in JoinGroup, the
// ConsumerProtocolAssignment the leader sends in SyncGroup, and the sticky
// assignors' user data.
//
// The bytes are those of the Java client and franz-go (kmsg
// ConsumerMemberMetadata, ConsumerMemberAssignment, StickyMemberMetadata):
// an int16 version, then the fields of that version in the classic
// (non-flexible) encoding, big-endian, strings with an int16 length, byte
// arrays and arrays with an int32 length, no tagged fields.
//
// Reading follows the Java client:
//   - a negative version is an error; a version above 3 is read with the
//     version 3 schema (the newer fields are appended, so a newer writer's
//     message starts with everything version 3 knows);
//   - bytes after the last known field are ignored, for every version;
//   - a negative length of a nullable string or byte array (writers use -1)
//     means null; a negative length of a topic name or an array is an error;
//   - partition numbers (negative ones included), duplicate topics and
//     duplicate partitions are returned as sent, and names are taken as
//     bytes without UTF-8 validation: judging them is the assignment
//     engine's job.
//
// Every decoder returns a *DecodeError wrapping ErrMalformed for input it
// cannot read, and never allocates more than the input can justify: each
// array count is checked against the bytes left before anything is
// allocated for it.
//
// Decoding is built for the group leader, which reads thousands of
// subscriptions naming the same topics: a Decoder interns topic names, so
// each distinct name is allocated once, and a decoded subscription costs
// three allocations whatever its size (the []string of topics, the owned
// []TopicPartitions, one backing array for all its partition numbers);
// user data aliases the input. Encoding sizes the output exactly and
// appends to a caller-supplied buffer: one allocation, none if the buffer
// is large enough.
package wire

// TopicPartitions names partitions of one topic.
type TopicPartitions struct {
	Topic      string
	Partitions []int32
}
