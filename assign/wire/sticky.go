package wire

// StickyUserData is the user data of the eager "sticky" assignor
// (StickyAssignorUserData), carried in Subscription.UserData. It has no
// version prefix; the two versions are told apart by length:
//
//	V0: previous_assignment []{topic string, partitions []int32}
//	V1: V0, then generation int32 (KIP-341)
type StickyUserData struct {
	// Previous is the member's assignment from the generation it last took
	// part in.
	Previous []TopicPartitions
	// Generation of Previous; -1 when the data is V0 (or absent).
	Generation int32
}

const (
	stickyStruct      = "StickyAssignorUserData"
	cooperativeStruct = "CooperativeStickyAssignorUserData"
)

// StickyUserDataSize returns the exact length of AppendStickyUserData's
// output.
func StickyUserDataSize(prev []TopicPartitions, v1 bool) int {
	n := topicPartitionsSize(prev)
	if v1 {
		n += 4
	}
	return n
}

// AppendStickyUserData appends StickyAssignorUserData to dst: V1 (with
// generation) when v1 is true, else V0 (generation is then not written).
// Topics and partitions are written in the given order; the Java writer's
// topic order is its HashMap order, so no byte order is canonical.
func AppendStickyUserData(dst []byte, prev []TopicPartitions, generation int32, v1 bool) []byte {
	dst = grow(dst, StickyUserDataSize(prev, v1))
	dst = appendTopicPartitions(dst, prev)
	if v1 {
		dst = appendInt32(dst, generation)
	}
	return dst
}

// StickyUserData decodes StickyAssignorUserData the way the Java client
// does: as V1 first and, if the generation is missing, as V0 with
// Generation -1. Bytes after the last field read are ignored, so V0 data
// followed by four or more stray bytes reads as V1, as in Java. Empty input
// (the member has no prior assignment) gives Generation -1 and no error.
//
// On error the result is the empty data with Generation -1, which is what
// the Java assignor falls back to; callers wanting Java's behaviour can use
// it and ignore the error.
func (d *Decoder) StickyUserData(b []byte) (StickyUserData, error) {
	none := StickyUserData{Generation: -1}
	if len(b) == 0 {
		return none, nil
	}
	// V1 is V0 plus a trailing field, so one pass reads both: if V0's part
	// fails, V1 would fail at the same byte; if only the generation is
	// missing, the V0 reading stands.
	r := newReader(b, stickyStruct)
	prev, err := d.topicPartitions(&r, "PreviousAssignment", &hint{})
	if err != nil {
		return none, err
	}
	if r.left() < 4 {
		return StickyUserData{Previous: prev, Generation: -1}, nil
	}
	gen, err := r.int32(field("Generation"))
	if err != nil {
		return none, err
	}
	return StickyUserData{Previous: prev, Generation: gen}, nil
}

// DecodeStickyUserData decodes StickyAssignorUserData without interning
// names; see (*Decoder).StickyUserData.
func DecodeStickyUserData(b []byte) (StickyUserData, error) {
	var d *Decoder
	return d.StickyUserData(b)
}

// CooperativeUserDataSize is the length of the cooperative-sticky
// assignor's user data.
const CooperativeUserDataSize = 4

// AppendCooperativeUserData appends the cooperative-sticky assignor's user
// data to dst: the member's generation as one big-endian int32 (-1 before
// its first assignment), with no version prefix.
func AppendCooperativeUserData(dst []byte, generation int32) []byte {
	return appendInt32(dst, generation)
}

// DecodeCooperativeUserData reads the cooperative-sticky assignor's user
// data: a generation as an int32, extra bytes ignored. Only subscriptions
// below version 2 need it; later ones carry Subscription.Generation.
//
// Empty input (no user data) gives -1 and no error. One to three bytes are
// an error, returned with -1, the generation the Java assignor falls back
// to.
func DecodeCooperativeUserData(b []byte) (int32, error) {
	if len(b) == 0 {
		return -1, nil
	}
	r := newReader(b, cooperativeStruct)
	gen, err := r.int32(field("Generation"))
	if err != nil {
		return -1, err
	}
	return gen, nil
}
