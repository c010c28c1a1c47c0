package apiconv

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/pbwire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Field numbers of the full view's lists, written here as wire bytes.
const (
	fieldPartitions protowire.Number = 2 // MemberAssignment.partitions
	fieldRevoked    protowire.Number = 5 // MemberAssignment.revoked
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

// appendLists appends tps as the repeated TopicPartitions field num.
func appendLists(b []byte, num protowire.Number, tps []assign.TopicPartitions) []byte {
	for _, tp := range tps {
		b = pbwire.AppendTopicPartitions(b, num, tp.Topic, tp.Partitions)
	}
	return b
}

// listsSize is the size appendLists appends.
func listsSize(num protowire.Number, tps []assign.TopicPartitions) int {
	n := 0
	for _, tp := range tps {
		n += pbwire.TopicPartitionsSize(num, tp.Topic, tp.Partitions)
	}
	return n
}
