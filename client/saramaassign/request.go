package saramaassign

import (
	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client/internal/leadercall"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// explicitRequest is the AssignRequest for g with every member in the
// explicit form (fields 4 to 8 of assignd.v1.Member): sarama hands a
// strategy decoded subscriptions and keeps no raw metadata bytes. It is the
// inverse of the server's conversion of explicit members, field for field,
// so that the server sees exactly the group the fallback runs on:
//
//   - topics, owned partitions and user data as they are;
//   - the generation only when known (absent reads as NoGeneration);
//   - the rack and the group.instance.id only when set.
//
// The response carries the decoded partitions (ASSIGNMENT_VIEW_FULL): a
// sarama leader returns a plan, not encoded assignments, so the encoded
// bytes are not used.
func explicitRequest(groupID, protocolName string, g *assign.Group) *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{
		GroupId: groupID, GenerationId: g.Generation, ProtocolName: protocolName,
		RebalanceProtocol: apiconv.ProtocolToAPI(g.Protocol),
		View:              assigndv1.AssignmentView_ASSIGNMENT_VIEW_FULL,
		Members:           make([]*assigndv1.Member, len(g.Members)),
		Topics:            leadercall.TopicsToAPI(g.Topics),
	}
	for i := range g.Members {
		m := &g.Members[i]
		pm := &assigndv1.Member{
			MemberId: m.ID, Topics: m.Topics, OwnedPartitions: topicPartitionsOut(m.Owned), UserData: m.UserData,
		}
		if m.InstanceID != "" {
			pm.GroupInstanceId = &m.InstanceID
		}
		if m.Generation != assign.NoGeneration {
			pm.Generation = &m.Generation
		}
		if m.Rack != "" {
			pm.RackId = &m.Rack
		}
		req.Members[i] = pm
	}
	return req
}

// topicPartitionsOut converts an engine list to the API's; partition
// slices are shared, not copied.
func topicPartitionsOut(in []assign.TopicPartitions) []*assigndv1.TopicPartitions {
	if len(in) == 0 {
		return nil
	}
	out := make([]*assigndv1.TopicPartitions, len(in))
	for i, tp := range in {
		out[i] = &assigndv1.TopicPartitions{Topic: tp.Topic, Partitions: tp.Partitions}
	}
	return out
}
