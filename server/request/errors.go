package request

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

// EngineError turns an error of assign.Run on the input's group into an
// [rpcerr.FieldError] that names the request field at fault; other errors
// pass through. The engine names members by id and fields in the engine's
// own terms; here they become request paths: the member's index in the
// request, and "metadata" for fields a member gave inside its raw
// subscription.
func (in *Input) EngineError(err error) error {
	var ie *assign.InputError
	if !errors.As(err, &ie) {
		return err
	}
	reason := assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP
	if errors.Is(err, assign.ErrUnsupportedProtocol) {
		reason = assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL
	}
	fe := &rpcerr.FieldError{Field: ie.Field, Member: ie.Member, Reason: reason, Desc: ie.Reason, Err: err}
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
	idx := in.memberIndex(ie.Member, rel == "member_id")
	if idx < 0 {
		return fe
	}
	if in.raw[idx] && decodedField(rel) {
		rel = "metadata"
	}
	fe.Field = fmt.Sprintf("members[%d]", idx)
	if rel != "" {
		fe.Field += "." + rel
	}
	return fe
}

// memberIndex finds member id in the request: the first occurrence, or the
// second when the error is about the id itself (a duplicate is the later
// entry).
func (in *Input) memberIndex(id string, duplicate bool) int {
	first := -1
	for i, m := range in.req.GetMembers() {
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
// raw-metadata members only; the field becomes the member's request path.
func (in *Input) metadataError(err error) error {
	var ie *assign.InputError
	if !errors.As(err, &ie) {
		return err
	}
	field := ie.Field
	if j, ok := metadataIndex(ie.Field); ok {
		for i, isRaw := range in.raw {
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
	return &rpcerr.FieldError{
		Field: field, Member: ie.Member,
		Reason: assigndv1.ErrorReason_ERROR_REASON_MALFORMED_METADATA,
		Desc:   desc, Err: err,
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
