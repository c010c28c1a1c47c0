package rpcerr

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// ToStatus is the one mapping from the services' errors to gRPC status:
//
//	*FieldError (request and engine validation)   INVALID_ARGUMENT + BadRequest + ErrorInfo
//	*LimitError (request larger than allowed)      RESOURCE_EXHAUSTED + ErrorInfo LIMIT_EXCEEDED
//	ErrOverloaded (no Assign slot in time)         RESOURCE_EXHAUSTED + ErrorInfo OVERLOADED
//	                                               (+ RetryInfo from an *OverloadError)
//	ErrCallerNotAllowed (a policy binding)         PERMISSION_DENIED + ErrorInfo CALLER_NOT_ALLOWED
//	ErrNoExplainer (ExplainPolicy, no Explainer)   UNIMPLEMENTED
//	ErrShuttingDown (grace period over)            UNAVAILABLE
//	context.DeadlineExceeded / Canceled            DEADLINE_EXCEEDED / CANCELED
//	anything else                                  INTERNAL + ErrorInfo INTERNAL, no detail
//
// An engine run stopped by the call's context (assign.ErrStopped) wraps
// the context's cause, so it lands on one of the last three rows; see
// [CallEnded] for which cause a call gets.
func ToStatus(err error) error {
	var fe *FieldError
	var le *LimitError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		meta := map[string]string{assigndv1.MetadataField: fe.Field}
		if fe.Member != "" {
			meta[assigndv1.MetadataMemberID] = ClipMessage(fe.Member)
		}
		var names ProtocolNamer
		if errors.As(fe, &names) {
			meta[assigndv1.MetadataProtocolNames] = strings.Join(names.ProtocolNames(), ",")
		}
		msg := fe.Error()
		if fe.Member != "" {
			msg += fmt.Sprintf(" (member %q)", Clip(fe.Member))
		}
		return withDetails(codes.InvalidArgument, msg,
			&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{
				Field:       fe.Field,
				Description: fe.Desc,
				Reason:      fe.Reason.String(),
			}}},
			errorInfo(fe.Reason, meta))
	case errors.As(err, &le):
		return withDetails(codes.ResourceExhausted, le.Error(),
			errorInfo(assigndv1.ErrorReason_ERROR_REASON_LIMIT_EXCEEDED, map[string]string{
				assigndv1.MetadataLimit: le.What, assigndv1.MetadataMax: strconv.FormatInt(le.Limit, 10), assigndv1.MetadataGot: strconv.FormatInt(le.Got, 10)}))
	case errors.Is(err, ErrCallerNotAllowed):
		// The policy's message names the group, the caller and the
		// binding, each clipped; nothing else of the policy is sent.
		return withDetails(codes.PermissionDenied, ClipMessage(err.Error()),
			errorInfo(assigndv1.ErrorReason_ERROR_REASON_CALLER_NOT_ALLOWED, nil))
	case errors.Is(err, ErrOverloaded):
		details := []protoadapt.MessageV1{errorInfo(assigndv1.ErrorReason_ERROR_REASON_OVERLOADED, nil)}
		var oe *OverloadError
		if errors.As(err, &oe) {
			// google.rpc.RetryInfo is the standard place for "come back
			// after", which gRPC clients in every language can read.
			details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(oe.RetryAfter)})
		}
		return withDetails(codes.ResourceExhausted, ErrOverloaded.Error(), details...)
	case errors.Is(err, ErrNoExplainer):
		return status.Error(codes.Unimplemented, ErrNoExplainer.Error())
	case errors.Is(err, ErrShuttingDown):
		return status.Error(codes.Unavailable, ErrShuttingDown.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "deadline exceeded before the assignment was computed")
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "call canceled")
	}
	return withDetails(codes.Internal, ErrInternal.Error(),
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

// ReasonOf returns the ErrorReason a [ToStatus] error carries, for
// metrics.
func ReasonOf(err error) assigndv1.ErrorReason {
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.Domain == assigndv1.ErrorDomain {
			return assigndv1.ErrorReason(assigndv1.ErrorReason_value[info.Reason])
		}
	}
	return assigndv1.ErrorReason_ERROR_REASON_UNSPECIFIED
}
