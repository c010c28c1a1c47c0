package rpcerr

import (
	"errors"
	"fmt"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/selection"
)

// FieldError rejects a request because of one field of it. Every
// INVALID_ARGUMENT the services return is built from one.
type FieldError struct {
	// Field is the path in the request, e.g. "members[3].metadata" or
	// "topics[0].partition_racks[2].partition".
	Field string
	// Member is the id of the member at fault, "" when not about a member.
	Member string
	Reason assigndv1.ErrorReason
	// Desc says what is wrong, quoting only clipped names.
	Desc string
	// Err is the cause, for errors.Is; nil when there is none.
	Err error
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Desc }
func (e *FieldError) Unwrap() error { return e.Err }

// LimitError rejects a request that is larger than the server allows.
type LimitError struct {
	// What is the quantity, also ErrorInfo's "limit": "partitions" or
	// "memory_bytes".
	What       string
	Limit, Got int64
	// Setting names what sets the limit, e.g. "--max-partitions", so that
	// the message says what an operator would raise.
	Setting string
}

func (e *LimitError) Error() string {
	msg := fmt.Sprintf("%s: %d exceeds the server's limit of %d", e.What, e.Got, e.Limit)
	if e.Setting != "" {
		msg += " (" + e.Setting + ")"
	}
	return msg
}

// ErrOverloaded: no Assign slot became free before the call's deadline.
// Admission returns it wrapped in an [*OverloadError] when it can tell
// when a slot is likely free.
var ErrOverloaded = errors.New("too many concurrent Assign calls; retry with backoff")

// OverloadError is [ErrOverloaded] with a hint: RetryAfter is how long the
// calls already in line are expected to hold the slots, so that a caller
// that retries (rather than falling back) does not come back into the
// same line. [ToStatus] sends it as google.rpc.RetryInfo.
type OverloadError struct{ RetryAfter time.Duration }

// Overloaded is [ErrOverloaded] with retryAfter as its hint; a hint of 0
// or less gives ErrOverloaded itself.
func Overloaded(retryAfter time.Duration) error {
	if retryAfter <= 0 {
		return ErrOverloaded
	}
	return &OverloadError{RetryAfter: retryAfter}
}

func (e *OverloadError) Error() string { return ErrOverloaded.Error() }
func (e *OverloadError) Unwrap() error { return ErrOverloaded }

// ErrShuttingDown is the cause of a computation stopped because the server
// is shutting down and its grace period is over. The caller should retry
// on another instance, hence UNAVAILABLE.
var ErrShuttingDown = errors.New("server shutting down; retry on another instance")

// ErrInternal stands for a bug (a recovered panic, a failing Selector). Its
// cause is logged, never sent: clients see only this message.
var ErrInternal = errors.New("internal error")

// ErrNoExplainer: the server was built without a policy explainer.
var ErrNoExplainer = errors.New("this server has no policy explainer (assignd runs one with every policy, --policy or the embedded default)")

// ErrCallerNotAllowed is wrapped by errors refusing a caller the policy's
// bindings do not allow to request the group; see
// [selection.ErrCallerNotAllowed], which it is.
var ErrCallerNotAllowed = selection.ErrCallerNotAllowed

// ProtocolNamer is the optional interface of errors that wrap
// [selection.ErrUnknownProtocol]: the names that are known.
type ProtocolNamer interface{ ProtocolNames() []string }

// UnknownProtocol is the client's error for a protocol name no assignor
// answers to, from a Selector or an Explainer.
func UnknownProtocol(err error) *FieldError {
	return &FieldError{Field: "protocol_name", Reason: assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME,
		Desc: ClipMessage(err.Error()), Err: err}
}
