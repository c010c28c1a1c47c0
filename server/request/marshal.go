package request

import (
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/assignd/assignd/internal/pbwire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Marshal writes req as proto.MarshalOptions{Deterministic: true} does,
// byte for byte (the history keeps these bytes, and digests them), and
// fails where it fails. As [Unmarshal] does for reading, it writes
// Member.topics and Member.owned_partitions itself, a million of each in
// a large explicit-form group, and leaves every other field to
// proto.Marshal.
func Marshal(req *assigndv1.AssignRequest) ([]byte, error) {
	var member []byte
	return marshalAround(nil, req, fieldMembers, fieldMembers, func(b []byte) ([]byte, error) {
		for _, m := range req.GetMembers() {
			var err error
			if member, err = marshalMember(member[:0], m); err != nil {
				return nil, err
			}
			b = protowire.AppendTag(b, fieldMembers, protowire.BytesType)
			b = protowire.AppendBytes(b, member)
		}
		return b, nil
	})
}

var deterministic = proto.MarshalOptions{Deterministic: true}

// marshalAround appends m as proto.Marshal writes it (its fields in
// number order, then its unknown fields), but for its fields from to to,
// which write appends.
func marshalAround(b []byte, m proto.Message, from, to protowire.Number, write func([]byte) ([]byte, error)) ([]byte, error) {
	r := m.ProtoReflect()
	head, tail := r.New(), r.New()
	r.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch n := fd.Number(); {
		case n < from:
			head.Set(fd, v)
		case n > to:
			tail.Set(fd, v)
		}
		return true
	})
	tail.SetUnknown(r.GetUnknown())
	b, err := deterministic.MarshalAppend(b, head.Interface())
	if err != nil {
		return nil, err
	}
	if b, err = write(b); err != nil {
		return nil, err
	}
	return deterministic.MarshalAppend(b, tail.Interface())
}

// marshalMember appends m's fields.
func marshalMember(b []byte, m *assigndv1.Member) ([]byte, error) {
	return marshalAround(b, m, fieldTopics, fieldOwnedPartitions, func(b []byte) ([]byte, error) {
		for _, t := range m.GetTopics() {
			if !utf8.ValidString(t) {
				return nil, errUTF8
			}
			b = protowire.AppendTag(b, fieldTopics, protowire.BytesType)
			b = protowire.AppendString(b, t)
		}
		for _, tp := range m.GetOwnedPartitions() {
			if len(tp.ProtoReflect().GetUnknown()) > 0 {
				// Rare; proto.Marshal writes it as it writes any message.
				var err error
				b = protowire.AppendTag(b, fieldOwnedPartitions, protowire.BytesType)
				b = protowire.AppendVarint(b, uint64(proto.Size(tp)))
				if b, err = deterministic.MarshalAppend(b, tp); err != nil {
					return nil, err
				}
				continue
			}
			if !utf8.ValidString(tp.GetTopic()) {
				return nil, errUTF8
			}
			b = pbwire.AppendTopicPartitions(b, fieldOwnedPartitions, tp.GetTopic(), tp.GetPartitions())
		}
		return b, nil
	})
}
