package main

import (
	"context"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// franzService is the peer: the Assign RPC of the same API computed by
// franz-go's cooperative-sticky balancer, as a leader running franz-go
// would compute it, so that the benchmark can compare assignd with it
// over the same gRPC path. It serves cooperative-sticky only, answers
// both views and fills what the full view carries (partitions, revoked);
// it keeps no history, policy or admission.
type franzService struct {
	assigndv1.UnimplementedAssignmentServiceServer
}

func (franzService) Assign(_ context.Context, req *assigndv1.AssignRequest) (*assigndv1.AssignResponse, error) {
	topics := make(map[string]int32, len(req.GetTopics()))
	for _, t := range req.GetTopics() {
		topics[t.GetName()] = t.GetPartitionCount()
	}
	members := make([]kmsg.JoinGroupResponseMember, len(req.GetMembers()))
	owned := make(map[string][]assign.TopicPartitions, len(members))
	for i, m := range req.GetMembers() {
		meta := m.GetMetadata()
		if len(meta) == 0 {
			// The explicit form, written as the subscription the member
			// would have sent.
			sub := &wire.Subscription{Version: 3, Topics: m.GetTopics(), UserData: m.GetUserData(), Generation: assign.NoGeneration}
			if m.Generation != nil {
				sub.Generation = m.GetGeneration()
			}
			for _, tp := range m.GetOwnedPartitions() {
				sub.Owned = append(sub.Owned, assign.TopicPartitions{Topic: tp.GetTopic(), Partitions: tp.GetPartitions()})
			}
			meta = wire.AppendSubscription(nil, sub)
		}
		sub, err := wire.DecodeSubscription(meta)
		if err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "member %q: %v", m.GetMemberId(), err)
		}
		owned[m.GetMemberId()] = sub.Owned
		members[i] = kmsg.JoinGroupResponseMember{MemberID: m.GetMemberId(), InstanceID: m.GroupInstanceId, ProtocolMetadata: meta}
	}
	mb, _, err := kgo.CooperativeStickyBalancer().MemberBalancer(members)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	into, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(topics)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	sync := into.IntoSyncAssignment()
	slices.SortFunc(sync, func(a, b kmsg.SyncGroupRequestGroupAssignment) int { return strings.Compare(a.MemberID, b.MemberID) })
	full := req.GetView() != assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED
	resp := &assigndv1.AssignResponse{Assignor: "cooperative-sticky", RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE}
	for _, s := range sync {
		ma := &assigndv1.MemberAssignment{MemberId: s.MemberID, Assignment: s.MemberAssignment}
		if full {
			var dec kmsg.ConsumerMemberAssignment
			if err := dec.ReadFrom(s.MemberAssignment); err != nil {
				return nil, status.Error(codes.Internal, err.Error())
			}
			kept := make(map[string]map[int32]bool, len(dec.Topics))
			for _, t := range dec.Topics {
				ma.Partitions = append(ma.Partitions, &assigndv1.TopicPartitions{Topic: t.Topic, Partitions: t.Partitions})
				set := make(map[int32]bool, len(t.Partitions))
				for _, p := range t.Partitions {
					set[p] = true
				}
				kept[t.Topic] = set
			}
			for _, tp := range owned[s.MemberID] {
				var gone []int32
				for _, p := range tp.Partitions {
					if !kept[tp.Topic][p] {
						gone = append(gone, p)
					}
				}
				if len(gone) > 0 {
					ma.Revoked = append(ma.Revoked, &assigndv1.TopicPartitions{Topic: tp.Topic, Partitions: gone})
				}
			}
		}
		resp.Assignments = append(resp.Assignments, ma)
	}
	return resp, nil
}
