package wire

import (
	"errors"
	"fmt"
	"strconv"
)

// ErrMalformed is wrapped by every decoding error. Use errors.As with
// *DecodeError for the structure, field and offset at fault.
var ErrMalformed = errors.New("malformed consumer protocol data")

// DecodeError says where and why a consumer-protocol message could not be
// read.
type DecodeError struct {
	// Struct is the message being read: "ConsumerProtocolSubscription",
	// "ConsumerProtocolAssignment", "StickyAssignorUserData" or
	// "CooperativeStickyAssignorUserData".
	Struct string
	// Field is the field being read, with the element index for arrays,
	// e.g. "Topics[2]" or "OwnedPartitions[0].Partitions".
	Field string
	// Offset is the byte offset in the input where the field starts.
	Offset int
	// Reason says what is wrong, e.g. "need 4 bytes, 1 left".
	Reason string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: %s at byte %d: %s", e.Struct, e.Field, e.Offset, e.Reason)
}

// Unwrap returns ErrMalformed.
func (e *DecodeError) Unwrap() error { return ErrMalformed }

// path names a field for a DecodeError without building the string on the
// success path: the name is only rendered when something fails.
type path struct {
	field string // top-level field, e.g. "OwnedPartitions"
	index int    // element index inside field, or -1
	sub   string // field inside the element, or ""
}

func (p path) String() string {
	if p.index < 0 {
		return p.field
	}
	s := p.field + "[" + strconv.Itoa(p.index) + "]"
	if p.sub != "" {
		s += "." + p.sub
	}
	return s
}

func field(name string) path { return path{field: name, index: -1} }
