package wire

// Assignment is a ConsumerProtocolAssignment, what the leader gives each
// member in SyncGroup. Versions 0 to 3 are byte-identical: the version only
// moves in lock-step with the subscription version.
type Assignment struct {
	// Version is the version read (any non-negative value).
	Version int16
	// Partitions assigned, grouped by topic.
	Partitions []TopicPartitions
	// UserData is the assignor's opaque data; nil is null on the wire.
	UserData []byte
}

const assignmentStruct = "ConsumerProtocolAssignment"

// AssignmentSize returns the exact length of AppendAssignment's output.
func AssignmentSize(parts []TopicPartitions, userData []byte) int {
	return 2 + topicPartitionsSize(parts) + nullableBytesSize(userData)
}

// AppendAssignment appends a ConsumerProtocolAssignment of the given
// version to dst and returns the extended buffer. Topics and partitions are
// written in the given order (the Java writer keeps topics in first-seen
// order and partitions in list order, so grouped input in a defined order
// gives defined bytes).
//
// It panics if version is outside 0..MaxVersion or a topic name is longer
// than MaxStringLen.
func AppendAssignment(dst []byte, version int16, parts []TopicPartitions, userData []byte) []byte {
	checkVersion(assignmentStruct, version)
	dst = grow(dst, AssignmentSize(parts, userData))
	dst = appendInt16(dst, version)
	dst = appendTopicPartitions(dst, parts)
	return appendNullableBytes(dst, userData)
}

// Assignment decodes a ConsumerProtocolAssignment. Every version, including
// those above MaxVersion, has the same fields; bytes after them are
// ignored.
func (d *Decoder) Assignment(b []byte) (Assignment, error) {
	r := newReader(b, assignmentStruct)
	v, err := r.int16(field("Version"))
	if err != nil {
		return Assignment{}, err
	}
	if v < 0 {
		return Assignment{}, r.fail(0, field("Version"), "negative version %d", v)
	}
	a := Assignment{Version: v}
	if a.Partitions, err = d.topicPartitions(&r, "AssignedPartitions", &hint{}); err != nil {
		return Assignment{}, err
	}
	if a.UserData, err = r.nullableBytes(field("UserData")); err != nil {
		return Assignment{}, err
	}
	return a, nil
}

// DecodeAssignment decodes a ConsumerProtocolAssignment without interning
// names; see (*Decoder).Assignment.
func DecodeAssignment(b []byte) (Assignment, error) {
	var d *Decoder
	return d.Assignment(b)
}
