package request

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

// Header is what a request asks for besides its group: checked before
// anything is allocated for it.
type Header struct {
	// Protocol is the requested rebalance protocol, possibly
	// [assign.ProtocolUnspecified] (the policy's then decides).
	Protocol assign.RebalanceProtocol
	// FullView: the response carries each member's partitions and revoked
	// lists besides the encoded assignment.
	FullView bool
	// MoveDetail is how many moves the response lists.
	MoveDetail int
}

// MaxMoveDetail caps AssignRequest.move_detail_limit: a listed move is
// some 50 bytes of response, and the list is for people and tools to
// read.
const MaxMoveDetail = 100_000

// ReadHeader checks the request's protocol name, rebalance protocol, view
// and move detail, and that its topic metadata holds at most
// maxPartitions partitions (0: no limit).
func ReadHeader(req *assigndv1.AssignRequest, maxPartitions int64) (Header, error) {
	var h Header
	if req.GetProtocolName() == "" {
		return h, &rpcerr.FieldError{Field: "protocol_name", Reason: assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME,
			Desc: "the group's protocol name is required, e.g. \"cooperative-sticky\""}
	}
	var err error
	if h.Protocol, err = Protocol(req.GetRebalanceProtocol()); err != nil {
		return h, err
	}
	if h.FullView, err = fullView(req.GetView()); err != nil {
		return h, err
	}
	if n := req.GetMoveDetailLimit(); n < 0 {
		return h, &rpcerr.FieldError{
			Field: "move_detail_limit", Reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
			Desc: fmt.Sprintf("move_detail_limit is %d; it must not be negative", n),
		}
	}
	h.MoveDetail = min(int(req.GetMoveDetailLimit()), MaxMoveDetail)
	if err := checkPartitions(req, maxPartitions); err != nil {
		return h, err
	}
	// The protocol name fixes what its clients run, whatever assignor a
	// policy puts behind it: range, roundrobin and sticky clients are
	// EAGER-only in Kafka, and a cooperative plan would hand them
	// partitions another member still consumes.
	if h.Protocol == assign.Cooperative && eagerOnlyName(req.GetProtocolName()) {
		return h, &rpcerr.FieldError{Field: "rebalance_protocol", Reason: assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL,
			Desc: fmt.Sprintf("%q clients run the EAGER protocol only", req.GetProtocolName()), Err: assign.ErrUnsupportedProtocol}
	}
	return h, nil
}

// Protocol converts a rebalance protocol of the API (a request's, or a
// recorded decision's).
func Protocol(p assigndv1.RebalanceProtocol) (assign.RebalanceProtocol, error) {
	switch p {
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED:
		return assign.ProtocolUnspecified, nil
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER:
		return assign.Eager, nil
	case assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE:
		return assign.Cooperative, nil
	}
	return 0, &rpcerr.FieldError{
		Field: "rebalance_protocol", Reason: assigndv1.ErrorReason_ERROR_REASON_UNSUPPORTED_REBALANCE_PROTOCOL,
		Desc: fmt.Sprintf("unknown rebalance protocol %d", int32(p)),
	}
}

// eagerOnlyName reports whether Kafka clients of this protocol name only run
// the EAGER rebalance protocol.
func eagerOnlyName(name string) bool {
	std, ok := assign.StandardOf(name)
	return ok && !std.Allows(assign.Cooperative)
}

func fullView(v assigndv1.AssignmentView) (bool, error) {
	switch v {
	case assigndv1.AssignmentView_ASSIGNMENT_VIEW_UNSPECIFIED, assigndv1.AssignmentView_ASSIGNMENT_VIEW_FULL:
		return true, nil
	case assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED:
		return false, nil
	}
	return false, &rpcerr.FieldError{
		Field: "view", Reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
		Desc: fmt.Sprintf("unknown assignment view %d", int32(v)),
	}
}

// checkPartitions rejects requests whose topic metadata is larger than the
// server is configured to assign, before anything is allocated for them.
func checkPartitions(req *assigndv1.AssignRequest, maxPartitions int64) error {
	if maxPartitions <= 0 {
		return nil
	}
	var total int64
	for _, t := range req.GetTopics() {
		if n := t.GetPartitionCount(); n > 0 {
			total += int64(n)
		}
	}
	if total > maxPartitions {
		return &rpcerr.LimitError{What: "partitions", Limit: maxPartitions, Got: total}
	}
	return nil
}
