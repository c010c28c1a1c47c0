// Package leader does what a consumer-group leader does around an
// assignor, on the Kafka wire formats: it decodes the members' JoinGroup
// metadata into an assign.Group and encodes each member's result as the
// ConsumerProtocolAssignment it sends in SyncGroup.
//
// The assignd server and the client shim's local fallback both go through
// this package, so that for the same input they produce the same bytes.
package leader

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
)

// JoinedMember is one member of a JoinGroup response.
type JoinedMember struct {
	// ID is the member id.
	ID string
	// InstanceID is the member's group.instance.id, "" for a dynamic member.
	InstanceID string
	// Metadata is the member's ConsumerProtocolSubscription (v0-v3, or a
	// later version read as v3).
	Metadata []byte
}

// Decoded is the group decoded from JoinGroup metadata.
type Decoded struct {
	Group *assign.Group
	// Versions holds, per member id, the ConsumerProtocol version that
	// member's assignment is encoded at: its subscription's version, capped
	// at the highest known one, so that an old client can read it.
	Versions map[string]int16
}

// Decode decodes every member's metadata. Topic names the members share
// are allocated once. A member whose metadata does not decode is an
// *assign.InputError wrapping assign.ErrInvalidGroup, naming the member
// and the field members[i].metadata, whose Reason carries the decoder's
// message (what and at which byte); errors.Is(err, wire.ErrMalformed) holds.
func Decode(members []JoinedMember, topics []assign.Topic, generation int32, protocol assign.RebalanceProtocol) (*Decoded, error) {
	g := &assign.Group{Generation: generation, Protocol: protocol, Topics: topics, Members: make([]assign.Member, len(members))}
	versions := make(map[string]int16, len(members))
	var dec wire.Decoder
	for i, m := range members {
		sub, err := dec.Subscription(m.Metadata)
		if err != nil {
			return nil, &metadataError{InputError: assign.InputError{
				Member: m.ID, Field: fmt.Sprintf("members[%d].metadata", i),
				Reason: "undecodable ConsumerProtocolSubscription: " + err.Error(), Err: assign.ErrInvalidGroup,
			}, cause: err}
		}
		g.Members[i] = assign.Member{
			ID: m.ID, InstanceID: m.InstanceID,
			Topics: sub.Topics, Owned: sub.Owned, UserData: sub.UserData,
			Generation: sub.Generation, Rack: sub.Rack,
		}
		versions[m.ID] = min(sub.Version, wire.MaxVersion)
	}
	return &Decoded{Group: g, Versions: versions}, nil
}

// metadataError is an InputError that also unwraps to the decoder's error.
type metadataError struct {
	assign.InputError
	cause error
}

func (e *metadataError) Unwrap() []error { return []error{&e.InputError, e.cause} }

// Encode returns, per member of r in r's order, the ConsumerProtocolAssignment
// to send in SyncGroup, encoded at versions[id] (members missing from
// versions get the highest known version). The results share one buffer.
func Encode(r *assign.Result, versions map[string]int16) [][]byte {
	size := 0
	for i := range r.Members {
		size += wire.AssignmentSize(r.Members[i].Assigned, r.Members[i].UserData)
	}
	buf := make([]byte, 0, size)
	out := make([][]byte, len(r.Members))
	for i := range r.Members {
		m := &r.Members[i]
		v, ok := versions[m.ID]
		if !ok {
			v = wire.MaxVersion
		}
		start := len(buf)
		buf = wire.AppendAssignment(buf, v, m.Assigned, m.UserData)
		out[i] = buf[start:len(buf):len(buf)]
	}
	return out
}
