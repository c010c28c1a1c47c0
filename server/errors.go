package server

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	clipx "github.com/assignd/assignd/internal/clip"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// fieldError rejects a request because of one field of it. Every
// INVALID_ARGUMENT the service returns is built from one.
type fieldError struct {
	// field is the path in AssignRequest, e.g. "members[3].metadata" or
	// "topics[0].partition_count".
	field string
	// member is the id of the member at fault, "" when not about a member.
	member string
	reason assigndv1.ErrorReason
	desc   string
	err    error
}

func (e *fieldError) Error() string { return e.field + ": " + e.desc }
func (e *fieldError) Unwrap() error { return e.err }

// limitError rejects a request that is larger than the server allows.
type limitError struct {
	// what is the quantity, also ErrorInfo's "limit": "partitions" or
	// "memory_bytes".
	what       string
	limit, got int64
	// setting names what sets the limit, e.g. "--max-partitions", so that
	// the message says what an operator would raise.
	setting string
}

func (e *limitError) Error() string {
	msg := fmt.Sprintf("%s: %d exceeds the server's limit of %d", e.what, e.got, e.limit)
	if e.setting != "" {
		msg += " (" + e.setting + ")"
	}
	return msg
}

// errOverloaded: no Assign slot became free before the call's deadline.
var errOverloaded = errors.New("too many concurrent Assign calls; retry with backoff")

// errShuttingDown is the cause of a computation stopped because the server
// is shutting down and its grace period is over. The caller should retry
// on another instance, hence UNAVAILABLE.
var errShuttingDown = errors.New("server shutting down; retry on another instance")

// errInternal stands for a bug (a recovered panic, a failing Selector). Its
// cause is logged, never sent: clients see only this message.
var errInternal = errors.New("internal error")

// toStatus is the one mapping from the service's errors to gRPC status:
//
//	*fieldError (request and engine validation)  INVALID_ARGUMENT + BadRequest + ErrorInfo
//	*limitError (request larger than allowed)     RESOURCE_EXHAUSTED + ErrorInfo LIMIT_EXCEEDED
//	errOverloaded (no Assign slot in time)        RESOURCE_EXHAUSTED + ErrorInfo OVERLOADED
//	ErrCallerNotAllowed (a policy binding)        PERMISSION_DENIED + ErrorInfo CALLER_NOT_ALLOWED
//	errNoExplainer (ExplainPolicy, no Explainer)  UNIMPLEMENTED
//	errShuttingDown (grace period over)           UNAVAILABLE
//	context.DeadlineExceeded / Canceled           DEADLINE_EXCEEDED / CANCELED
//	anything else                                 INTERNAL + ErrorInfo INTERNAL, no detail
//
// An engine run stopped by the call's context (assign.ErrStopped) wraps
// the context's cause, so it lands on one of the last three rows; see
// [callEnded] for which cause a call gets.
func toStatus(err error) error {
	var fe *fieldError
	var le *limitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		meta := map[string]string{assigndv1.MetadataField: fe.field}
		if fe.member != "" {
			meta[assigndv1.MetadataMemberID] = clipN(fe.member, maxMessage)
		}
		var names protocolNamer
		if errors.As(fe, &names) {
			meta[assigndv1.MetadataProtocolNames] = strings.Join(names.ProtocolNames(), ",")
		}
		msg := fe.Error()
		if fe.member != "" {
			msg += fmt.Sprintf(" (member %q)", clip(fe.member))
		}
		return withDetails(codes.InvalidArgument, msg,
			&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{
				Field:       fe.field,
				Description: fe.desc,
				Reason:      fe.reason.String(),
			}}},
			errorInfo(fe.reason, meta))
	case errors.As(err, &le):
		return withDetails(codes.ResourceExhausted, le.Error(),
			errorInfo(assigndv1.ErrorReason_ERROR_REASON_LIMIT_EXCEEDED, map[string]string{
				assigndv1.MetadataLimit: le.what, assigndv1.MetadataMax: strconv.FormatInt(le.limit, 10), assigndv1.MetadataGot: strconv.FormatInt(le.got, 10)}))
	case errors.Is(err, ErrCallerNotAllowed):
		// The policy's message names the group, the caller and the
		// binding, each clipped; nothing else of the policy is sent.
		return withDetails(codes.PermissionDenied, clipN(err.Error(), maxMessage),
			errorInfo(assigndv1.ErrorReason_ERROR_REASON_CALLER_NOT_ALLOWED, nil))
	case errors.Is(err, errOverloaded):
		return withDetails(codes.ResourceExhausted, errOverloaded.Error(),
			errorInfo(assigndv1.ErrorReason_ERROR_REASON_OVERLOADED, nil))
	case errors.Is(err, errNoExplainer):
		return status.Error(codes.Unimplemented, errNoExplainer.Error())
	case errors.Is(err, errShuttingDown):
		return status.Error(codes.Unavailable, errShuttingDown.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "deadline exceeded before the assignment was computed")
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "call canceled")
	}
	return withDetails(codes.Internal, errInternal.Error(),
		errorInfo(assigndv1.ErrorReason_ERROR_REASON_INTERNAL, nil))
}

func errorInfo(r assigndv1.ErrorReason, meta map[string]string) *errdetails.ErrorInfo {
	return &errdetails.ErrorInfo{Reason: r.String(), Domain: assigndv1.ErrorDomain, Metadata: meta}
}

func withDetails(c codes.Code, msg string, details ...protoadapt.MessageV1) error {
	st := status.New(c, msg)
	if d, err := st.WithDetails(details...); err == nil {
		st = d
	}
	return st.Err()
}

// callEnded returns why a call's context is done, as toStatus maps it:
// errShuttingDown, context.DeadlineExceeded or context.Canceled. A call
// canceled within deadlineReserve of its deadline counts as past it: the
// caller's own timer fires first (its deadline is the server's less the
// network's delay) and grpc-go then reports a cancellation, but the
// caller gave up because time ran out.
func callEnded(ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, context.Canceled) && !errors.Is(cause, errShuttingDown) {
		if d, ok := ctx.Deadline(); ok && time.Until(d) <= deadlineReserve {
			return context.DeadlineExceeded
		}
	}
	return cause
}

// stopped turns an error of a run stopped by its context into the call's
// end (see [callEnded]); other errors pass through.
func stopped(ctx context.Context, err error) error {
	if errors.Is(err, assign.ErrStopped) && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", assign.ErrStopped, callEnded(ctx))
	}
	return err
}

// reasonOf returns the ErrorReason a toStatus error carries, for metrics.
func reasonOf(err error) assigndv1.ErrorReason {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.Domain == assigndv1.ErrorDomain {
			return assigndv1.ErrorReason(assigndv1.ErrorReason_value[info.Reason])
		}
	}
	return assigndv1.ErrorReason_ERROR_REASON_UNSPECIFIED
}

// engineError turns an error of assign.Run into a fieldError that names the
// request field at fault. The engine names members by id and fields in the
// engine's own terms; here they become request paths: the member's index in
// the request, and "metadata" for fields a member gave inside its raw
// subscription.
func engineError(err error, req *assigndv1.AssignRequest, raw []bool) error {
	var ie *assign.InputError
	if !errors.As(err, &ie) {
		return err
	}
	reason := assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP
	if errors.Is(err, assign.ErrUnsupportedProtocol) {
		reason = assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL
	}
	fe := &fieldError{field: ie.Field, member: ie.Member, reason: reason, desc: ie.Reason, err: err}
	if ie.Member == "" {
		return fe
	}
	rel := ie.Field
	if strings.HasPrefix(rel, "members") {
		// "members[7].topics[2]" or "members.member_id": the engine's index
		// may be in its own (sorted) order; the request index is found by id.
		if dot := strings.IndexByte(rel, '.'); dot >= 0 {
			rel = rel[dot+1:]
		} else {
			rel = ""
		}
	}
	idx := memberIndex(req, ie.Member, rel == "member_id")
	if idx < 0 {
		return fe
	}
	if raw[idx] && decodedField(rel) {
		rel = "metadata"
	}
	fe.field = fmt.Sprintf("members[%d]", idx)
	if rel != "" {
		fe.field += "." + rel
	}
	return fe
}

// memberIndex finds member id in the request: the first occurrence, or the
// second when the error is about the id itself (a duplicate is the later
// entry).
func memberIndex(req *assigndv1.AssignRequest, id string, duplicate bool) int {
	first := -1
	for i, m := range req.GetMembers() {
		if m.GetMemberId() != id {
			continue
		}
		if !duplicate || first >= 0 {
			return i
		}
		first = i
	}
	return first
}

// decodedField reports whether an engine field of a member comes from the
// member's subscription (and so, for a raw-metadata member, from metadata).
func decodedField(rel string) bool {
	name := rel
	if i := strings.IndexAny(name, "[."); i >= 0 {
		name = name[:i]
	}
	switch name {
	case "topics", "owned_partitions", "user_data", "generation", "rack_id":
		return true
	}
	return false
}

// metadataError rejects an undecodable raw subscription. leader.Decode
// names the member and the field members[j].metadata, j counting the
// raw-metadata members only (raw marks them by request index); the field
// becomes the member's request path.
func metadataError(err error, in []*assigndv1.Member, raw []bool) error {
	var ie *assign.InputError
	if !errors.As(err, &ie) {
		return err
	}
	field := ie.Field
	if j, ok := metadataIndex(ie.Field); ok {
		for i, isRaw := range raw {
			if !isRaw {
				continue
			}
			if j == 0 {
				field = fmt.Sprintf("members[%d].metadata", i)
				break
			}
			j--
		}
	}
	// A DecodeError already says which structure, field and byte offset.
	desc := ie.Reason
	var de *wire.DecodeError
	if errors.As(err, &de) {
		desc = de.Error()
	}
	return &fieldError{
		field: field, member: ie.Member,
		reason: assigndv1.ErrorReason_ERROR_REASON_MALFORMED_METADATA,
		desc:   desc, err: err,
	}
}

// metadataIndex parses "members[j].metadata".
func metadataIndex(field string) (int, bool) {
	rest, ok := strings.CutPrefix(field, "members[")
	if !ok {
		return 0, false
	}
	num, ok := strings.CutSuffix(rest, "].metadata")
	if !ok {
		return 0, false
	}
	j, err := strconv.Atoi(num)
	return j, err == nil && j >= 0
}

// clip shortens client-supplied strings echoed in messages and logs.
func clip(s string) string { return clipN(s, clipx.Short) }

// maxMessage bounds messages composed elsewhere (a Selector's error) that
// may quote what the client sent.
const maxMessage = 1024

func clipN(s string, n int) string { return clipx.String(s, n) }
