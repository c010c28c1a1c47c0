package assign

import (
	"errors"
	"fmt"
)

// ErrInvalidGroup is wrapped by every error that rejects a malformed or
// inconsistent Group. Use errors.As with *InputError for the details.
var ErrInvalidGroup = errors.New("invalid group")

// ErrUnsupportedProtocol is wrapped when the group's rebalance protocol is
// one the assignor does not run (in Kafka, range, roundrobin and sticky are
// EAGER-only).
var ErrUnsupportedProtocol = errors.New("unsupported rebalance protocol")

// ErrStopped is wrapped by the error of a run stopped by the context given
// with [WithContext]; the error also wraps the context's cause (for example
// context.DeadlineExceeded), so errors.Is answers both questions.
var ErrStopped = errors.New("assignment stopped")

// InputError says which member and which field of the input is at fault.
type InputError struct {
	// Member is the member id at fault, "" when the error is not about one
	// member.
	Member string
	// Field names the field at fault, e.g. "owned_partitions" or
	// "topics[2].partition_count".
	Field string
	// Reason says what is wrong.
	Reason string
	// Err is the sentinel this error wraps (ErrInvalidGroup or
	// ErrUnsupportedProtocol).
	Err error
}

func (e *InputError) Error() string {
	if e.Member != "" {
		return fmt.Sprintf("member %q: %s: %s", e.Member, e.Field, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.Field, e.Reason)
}

func (e *InputError) Unwrap() error { return e.Err }

func invalid(member, field, format string, args ...any) error {
	return &InputError{Member: member, Field: field, Reason: fmt.Sprintf(format, args...), Err: ErrInvalidGroup}
}
