package kgoassign

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/leader"
	"github.com/assignd/assignd/client/internal/leadercall"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// input is the leader's view of one rebalance. The request to assignd and
// the in-process fallback are both derived from it, so that they see the
// same group.
type input struct {
	group      string
	leader     string
	generation int32
	// members in kgo's order (static members by instance id, then dynamic
	// ones by member id), with their metadata as they sent it.
	members []leader.JoinedMember
	// topics sorted by name; Racks nil unless some member reports a rack
	// and the metadata knows replica racks.
	topics     []assign.Topic
	partitions int
}

// input gathers the rebalance kgo hands the leader: members and metadata
// from the JoinGroup response, partition counts from the leader's topic
// metadata, the group id, generation and leader id from kgo's BalanceInfo.
func (b *Balancer) input(cb *kgo.ConsumerBalancer, counts map[string]int32) *input {
	info := cb.Info()
	in := &input{group: info.Group, leader: info.LeaderID, generation: info.Generation}
	for _, m := range cb.Members() {
		jm := leader.JoinedMember{ID: m.MemberID, Metadata: m.ProtocolMetadata}
		if m.InstanceID != nil {
			jm.InstanceID = *m.InstanceID
		}
		in.members = append(in.members, jm)
	}
	var racks map[string][][]string
	if b.cfg.partitionRacks && anyMemberRack(cb) {
		racks = partitionRacks(cb, counts)
	}
	names := make([]string, 0, len(counts))
	for t := range counts {
		names = append(names, t)
	}
	slices.Sort(names)
	for _, t := range names {
		in.topics = append(in.topics, assign.Topic{Name: t, Partitions: counts[t], Racks: racks[t]})
		in.partitions += int(max(counts[t], 0))
	}
	return in
}

// request is the AssignRequest for in: raw metadata form, the explicit
// rebalance protocol the fallback uses too.
func (in *input) request(protocolName string, p assign.RebalanceProtocol) *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{
		GroupId: in.group, GenerationId: in.generation, LeaderId: in.leader,
		ProtocolName: protocolName, RebalanceProtocol: apiconv.ProtocolToAPI(p),
		// SyncGroup takes the encoded assignments as they are; the
		// decoded lists would be built and parsed for nothing.
		View:    assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED,
		Members: make([]*assigndv1.Member, len(in.members)),
		Topics:  leadercall.TopicsToAPI(in.topics),
	}
	for i, m := range in.members {
		pm := &assigndv1.Member{MemberId: m.ID, Metadata: m.Metadata}
		if m.InstanceID != "" {
			pm.GroupInstanceId = &m.InstanceID
		}
		req.Members[i] = pm
	}
	return req
}

func anyMemberRack(cb *kgo.ConsumerBalancer) bool {
	found := false
	cb.EachMember(func(_ *kmsg.JoinGroupResponseMember, meta *kmsg.ConsumerMemberMetadata) {
		if meta.Rack != nil && *meta.Rack != "" {
			found = true
		}
	})
	return found
}

// partitionRacks returns, per topic, the racks of each partition's
// replicas (KIP-881 uses every replica's rack, since a consumer may fetch
// from any of them). The leader's cached metadata gives replicas and broker
// racks; for a topic missing from it, kgo's per-partition leader rack is
// the best known. A topic with no rack at all is left out, and nil is
// returned when no partition has a rack.
func partitionRacks(cb *kgo.ConsumerBalancer, counts map[string]int32) map[string][][]string {
	info := cb.Info()
	var topics map[string]kgo.TopicMetadata
	if info.Topics != nil {
		topics = info.Topics()
	}
	var brokers map[int32]kgo.BrokerMetadata
	if info.Brokers != nil {
		brokers = info.Brokers()
	}
	leaderRacks := cb.PartitionRacks()
	var out map[string][][]string
	for topic, n := range counts {
		if n <= 0 {
			continue
		}
		racks := make([][]string, n)
		found := false
		for _, p := range topics[topic].Partitions {
			if p.Partition < 0 || p.Partition >= n {
				continue
			}
			for _, r := range p.Replicas {
				if rack := brokers[r].Rack; rack != nil && *rack != "" && !slices.Contains(racks[p.Partition], *rack) {
					racks[p.Partition] = append(racks[p.Partition], *rack)
				}
			}
		}
		for p := range racks {
			if racks[p] == nil && p < len(leaderRacks[topic]) && leaderRacks[topic][p] != "" {
				racks[p] = []string{leaderRacks[topic][p]}
			}
			if racks[p] != nil {
				slices.Sort(racks[p])
				found = true
			}
		}
		if found {
			if out == nil {
				out = make(map[string][][]string)
			}
			out[topic] = racks
		}
	}
	return out
}
