package server

import (
	"errors"
	"fmt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/leader"
	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// rebalanceProtocol converts the request's rebalance protocol.
func rebalanceProtocol(p assigndv1.RebalanceProtocol) (assign.RebalanceProtocol, error) {
	rp, err := apiconv.ProtocolFromAPI(p)
	return rp, convError(err)
}

// convError turns what [apiconv] cannot convert into the service's
// INVALID_ARGUMENT error for that field.
func convError(err error) error {
	var ce *apiconv.FieldError
	if errors.As(err, &ce) {
		return &fieldError{field: ce.Field, reason: ce.Reason, desc: ce.Desc}
	}
	return err
}

// decodedView reports whether the response carries each member's
// partitions and revoked lists besides the encoded assignment.
func decodedView(v assigndv1.AssignmentView) (bool, error) {
	switch v {
	case assigndv1.AssignmentView_ASSIGNMENT_VIEW_UNSPECIFIED, assigndv1.AssignmentView_ASSIGNMENT_VIEW_FULL:
		return true, nil
	case assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED:
		return false, nil
	}
	return false, &fieldError{
		field: "view", reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
		desc: fmt.Sprintf("unknown assignment view %d", int32(v)),
	}
}

// maxMoveDetail caps AssignRequest.move_detail_limit: a listed move is some
// 50 bytes of response, and the list is for people and tools to read.
const maxMoveDetail = 100_000

// moveDetailLimit is how many moves the response lists.
func moveDetailLimit(n int32) (int, error) {
	if n < 0 {
		return 0, &fieldError{
			field: "move_detail_limit", reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
			desc: fmt.Sprintf("move_detail_limit is %d; it must not be negative", n),
		}
	}
	return min(int(n), maxMoveDetail), nil
}

// checkLimits rejects requests whose topic metadata is larger than the
// server is configured to assign, before anything is allocated for them.
func checkLimits(req *assigndv1.AssignRequest, maxPartitions int64) error {
	var total int64
	for _, t := range req.GetTopics() {
		if n := t.GetPartitionCount(); n > 0 {
			total += int64(n)
		}
	}
	if maxPartitions > 0 && total > maxPartitions {
		return &limitError{what: "partitions", limit: maxPartitions, got: total}
	}
	return nil
}

// topics converts the leader's topic metadata.
func topics(req *assigndv1.AssignRequest) ([]assign.Topic, error) {
	ts, err := apiconv.TopicsFromAPI(req.GetTopics())
	return ts, convError(err)
}

// maxWeightUnit is the longest weight_unit a request may carry.
const maxWeightUnit = 64

// weights converts the request's partition weights (the engine checks
// the values) and checks its weight unit.
func weights(req *assigndv1.AssignRequest) ([]assign.TopicWeights, error) {
	if u := req.GetWeightUnit(); len(u) > maxWeightUnit {
		return nil, &fieldError{
			field: "weight_unit", reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
			desc: fmt.Sprintf("the weight unit is %d bytes long, more than %d", len(u), maxWeightUnit),
		}
	}
	return apiconv.WeightsFromAPI(req.GetPartitionWeights()), nil
}

// members converts the request's members into g.Members, in request
// order. It returns the version each member's assignment is encoded at, by
// member id, and which members (by request index) came as raw metadata, so
// that errors name the right field.
//
// Raw subscriptions are decoded by leader.Decode, the codec the client
// shim's local fallback uses too, so that the service and the fallback
// read the same bytes the same way by construction. Decode sees the
// raw-metadata members only (in the usual request, all of them, and its
// members are then used as they are); explicit-form members are converted
// by [apiconv.MemberFromAPI], get the highest version, and are merged back in request order.
func members(req *assigndv1.AssignRequest, g *assign.Group) (map[string]int16, []bool, error) {
	in := req.GetMembers()
	raw := make([]bool, len(in))
	joined := make([]leader.JoinedMember, 0, len(in))
	for i, m := range in {
		if len(m.GetMetadata()) == 0 {
			continue
		}
		if field := explicitField(m); field != "" {
			return nil, nil, &fieldError{
				field: fmt.Sprintf("members[%d].%s", i, field), member: m.GetMemberId(),
				reason: assigndv1.ErrorReason_ERROR_REASON_CONFLICTING_MEMBER_FIELDS,
				desc:   fmt.Sprintf("metadata and %s are both set; give either the raw metadata or the fields 4 to 8", field),
			}
		}
		raw[i] = true
		joined = append(joined, leader.JoinedMember{ID: m.GetMemberId(), InstanceID: m.GetGroupInstanceId(), Metadata: m.GetMetadata()})
	}
	var versions map[string]int16
	var decoded []assign.Member
	if len(joined) > 0 {
		d, err := leader.Decode(joined, g.Topics, g.Generation, g.Protocol)
		if err != nil {
			return nil, nil, metadataError(err, in, raw)
		}
		if len(joined) == len(in) {
			g.Members = d.Group.Members
			return d.Versions, raw, nil
		}
		versions, decoded = d.Versions, d.Group.Members
	} else {
		versions = make(map[string]int16, len(in))
	}
	g.Members = make([]assign.Member, len(in))
	for i, m := range in {
		if raw[i] {
			g.Members[i], decoded = decoded[0], decoded[1:]
			continue
		}
		g.Members[i] = apiconv.MemberFromAPI(m)
		versions[m.GetMemberId()] = wire.MaxVersion
	}
	return versions, raw, nil
}

// explicitField names the first of fields 4 to 8 that m sets, or "".
func explicitField(m *assigndv1.Member) string {
	switch {
	case len(m.GetTopics()) > 0:
		return "topics"
	case len(m.GetOwnedPartitions()) > 0:
		return "owned_partitions"
	case len(m.GetUserData()) > 0:
		return "user_data"
	case m.Generation != nil:
		return "generation"
	case m.RackId != nil:
		return "rack_id"
	}
	return ""
}
