package request

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

// What the decoders of the group types other than consumer groups
// (AssignTasks, AssignShare) share: the assignor field, the field errors
// and the request path of an engine error.

// resolveRef resolves a request's assignor field, "name@version" or
// "name" (version 1), with lookup; kind names the assignors in the error
// ("task", "share").
func resolveRef[A any](ref, kind string, lookup func(name string, version int) (A, bool)) (A, error) {
	var none A
	name, v, hasVersion := strings.Cut(ref, "@")
	version := 1
	if hasVersion {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return none, &rpcerr.FieldError{Field: "assignor", Reason: assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME,
				Desc: fmt.Sprintf("%q: the version is not a positive number", rpcerr.Clip(ref))}
		}
		version = n
	}
	a, ok := lookup(name, version)
	if !ok {
		return none, &rpcerr.FieldError{Field: "assignor", Reason: assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME,
			Desc: fmt.Sprintf("no %s assignor %q", kind, rpcerr.Clip(ref))}
	}
	return a, nil
}

// servesGroupType refuses a request whose group_type is neither
// unspecified nor want, the one group type the RPC serves; why says so.
func servesGroupType(gt, want assigndv1.GroupType, why string) error {
	if gt != assigndv1.GroupType_GROUP_TYPE_UNSPECIFIED && gt != want {
		return groupField("group_type", "", "%s: %s", gt, why)
	}
	return nil
}

// engineLimit returns the check of a request's count against a limit of
// the engine that setting names: a [rpcerr.LimitError] when got is over
// limit, else nil.
func engineLimit(setting string) func(what string, got, limit int64) error {
	return func(what string, got, limit int64) error {
		if got > limit {
			return &rpcerr.LimitError{What: what, Limit: limit, Got: got, Setting: setting}
		}
		return nil
	}
}

// groupField is an INVALID_GROUP error on a request field.
func groupField(field, member, format string, args ...any) *rpcerr.FieldError {
	return &rpcerr.FieldError{Field: field, Member: member, Reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
		Desc: fmt.Sprintf(format, args...), Err: assign.ErrInvalidGroup}
}

// engineFieldError turns an error of a group type's engine into an
// [rpcerr.FieldError] naming the request field: a group's field under
// prefix (as "topics[") takes the request's names by names, and a
// member's field gains the member's index ([memberPath]; id(i) is the
// request's i-th member id, of n). Other errors pass through.
func engineFieldError(err error, prefix string, names *strings.Replacer, n int, id func(int) string) error {
	var ie *assign.InputError
	if !errors.As(err, &ie) {
		return err
	}
	field := ie.Field
	if ie.Member == "" && strings.HasPrefix(field, prefix) {
		field = names.Replace(field)
	}
	field = memberPath(ie.Member, field, n, id)
	return &rpcerr.FieldError{Field: field, Member: ie.Member, Reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP, Desc: ie.Reason, Err: err}
}

// memberPath is the request path of field, which the engine names
// relative to member: "members[i]." and the field, i being the member's
// first index in the request, or its last when the id itself is at fault
// (a repeat is the later entry). id(i) is the request's i-th member id,
// of n; field is returned as it is when member is "" or not found.
func memberPath(member, field string, n int, id func(int) string) string {
	if member == "" {
		return field
	}
	at := -1
	for i := range n {
		if id(i) == member {
			at = i
			if field != "member_id" {
				break
			}
		}
	}
	if at < 0 {
		return field
	}
	return fmt.Sprintf("members[%d].%s", at, field)
}
