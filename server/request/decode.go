package request

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/leader"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

// Input is a decoded request: the engine's group and what encoding its
// answer and naming its errors need.
type Input struct {
	Group *assign.Group
	// Versions is the version each member's assignment is encoded at, by
	// member id: its own subscription's for a raw-metadata member, the
	// highest for an explicit one.
	Versions map[string]int16

	req *assigndv1.AssignRequest
	// raw marks, by request index, the members given as raw metadata.
	raw []bool
}

// maxWeightUnit is the longest weight_unit a request may carry.
const maxWeightUnit = 64

// Decode converts the request's topics, partition weights and members into
// the engine's group, to run under proto (the request's rebalance
// protocol, or the policy's when the request leaves it open). The engine
// validates the rest when it runs.
func Decode(req *assigndv1.AssignRequest, proto assign.RebalanceProtocol) (*Input, error) {
	ts, err := topics(req.GetTopics())
	if err != nil {
		return nil, err
	}
	g := &assign.Group{Generation: req.GetGenerationId(), Protocol: proto, Topics: ts}
	if u := req.GetWeightUnit(); len(u) > maxWeightUnit {
		return nil, &rpcerr.FieldError{
			Field: "weight_unit", Reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP,
			Desc: fmt.Sprintf("the weight unit is %d bytes long, more than %d", len(u), maxWeightUnit),
		}
	}
	g.Weights = weights(req.GetPartitionWeights())
	in := &Input{Group: g, req: req}
	if err := in.members(); err != nil {
		return nil, err
	}
	return in, nil
}

// members converts the request's members into the group's, in request
// order. Decode sees the raw-metadata members only (in the usual request,
// all of them, and its members are then used as they are); explicit-form
// members are converted field by field, get the highest version, and are
// merged back in request order.
func (in *Input) members() error {
	ms := in.req.GetMembers()
	g := in.Group
	in.raw = make([]bool, len(ms))
	joined := make([]leader.JoinedMember, 0, len(ms))
	for i, m := range ms {
		if len(m.GetMetadata()) == 0 {
			continue
		}
		if field := explicitField(m); field != "" {
			return &rpcerr.FieldError{
				Field: fmt.Sprintf("members[%d].%s", i, field), Member: m.GetMemberId(),
				Reason: assigndv1.ErrorReason_ERROR_REASON_CONFLICTING_MEMBER_FIELDS,
				Desc:   fmt.Sprintf("metadata and %s are both set; give either the raw metadata or the fields 4 to 8", field),
			}
		}
		in.raw[i] = true
		joined = append(joined, leader.JoinedMember{ID: m.GetMemberId(), InstanceID: m.GetGroupInstanceId(), Metadata: m.GetMetadata()})
	}
	var decoded []assign.Member
	if len(joined) > 0 {
		d, err := leader.Decode(joined, g.Topics, g.Generation, g.Protocol)
		if err != nil {
			return in.metadataError(err)
		}
		if len(joined) == len(ms) {
			g.Members, in.Versions = d.Group.Members, d.Versions
			return nil
		}
		in.Versions, decoded = d.Versions, d.Group.Members
	} else {
		in.Versions = make(map[string]int16, len(ms))
	}
	g.Members = make([]assign.Member, len(ms))
	for i, m := range ms {
		if in.raw[i] {
			g.Members[i], decoded = decoded[0], decoded[1:]
			continue
		}
		g.Members[i] = member(m)
		in.Versions[m.GetMemberId()] = wire.MaxVersion
	}
	return nil
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

// topics converts the leader's topic metadata. Partition racks become the
// engine's one-entry-per-partition form; partitions not listed get none.
// A negative partition count passes through: it is the engine's to
// reject.
func topics(in []*assigndv1.Topic) ([]assign.Topic, error) {
	out := make([]assign.Topic, len(in))
	for i, t := range in {
		out[i] = assign.Topic{Name: t.GetName(), Partitions: t.GetPartitionCount()}
		prs := t.GetPartitionRacks()
		if len(prs) == 0 || t.GetPartitionCount() < 0 {
			continue
		}
		racks := make([][]string, t.GetPartitionCount())
		seen := make([]bool, len(racks))
		for j, pr := range prs {
			p := pr.GetPartition()
			var problem string
			switch {
			case p < 0 || int(p) >= len(racks):
				problem = fmt.Sprintf("partition %d of topic %q is outside 0..%d", p, rpcerr.Clip(t.GetName()), len(racks)-1)
			case seen[p]:
				problem = fmt.Sprintf("partition %d of topic %q is listed more than once", p, rpcerr.Clip(t.GetName()))
			}
			if problem != "" {
				return nil, &rpcerr.FieldError{
					Field:  fmt.Sprintf("topics[%d].partition_racks[%d].partition", i, j),
					Reason: assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP, Desc: problem,
				}
			}
			seen[p] = true
			racks[p] = pr.GetRacks()
		}
		out[i].Racks = racks
	}
	return out, nil
}

// member converts a member given field by field (fields 4 to 8 of
// Member). A member given as raw metadata is decoded by leader.Decode
// instead.
func member(m *assigndv1.Member) assign.Member {
	out := assign.Member{
		ID: m.GetMemberId(), InstanceID: m.GetGroupInstanceId(),
		Topics: m.GetTopics(), Owned: topicPartitions(m.GetOwnedPartitions()), UserData: m.GetUserData(),
		Generation: assign.NoGeneration, Rack: m.GetRackId(),
	}
	if m.Generation != nil {
		out.Generation = m.GetGeneration()
	}
	return out
}

// topicPartitions converts an API list to the engine's; the partition
// slices are shared, not copied.
func topicPartitions(in []*assigndv1.TopicPartitions) []assign.TopicPartitions {
	if len(in) == 0 {
		return nil
	}
	out := make([]assign.TopicPartitions, len(in))
	for i, tp := range in {
		out[i] = assign.TopicPartitions{Topic: tp.GetTopic(), Partitions: tp.GetPartitions()}
	}
	return out
}

// weights converts the request's partition weights; the weight slices are
// shared, not copied. The engine validates them.
func weights(in []*assigndv1.PartitionWeights) []assign.TopicWeights {
	if len(in) == 0 {
		return nil
	}
	out := make([]assign.TopicWeights, len(in))
	for i, pw := range in {
		out[i] = assign.TopicWeights{Topic: pw.GetTopic(), Weights: pw.GetWeights()}
	}
	return out
}
