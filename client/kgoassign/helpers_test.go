package kgoassign_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	"github.com/assignd/assignd/testbed/shimtest"
)

// metadataFor encodes m's ConsumerProtocolSubscription v3 the way a member
// of the given protocol does: cooperative-sticky reports owned partitions,
// sticky carries them in its user data, range and roundrobin report
// neither.
func metadataFor(protocol string, m *assign.Member) []byte {
	sub := wire.Subscription{Version: 3, Topics: m.Topics, Generation: m.Generation, Rack: m.Rack}
	switch protocol {
	case assign.NameCooperativeSticky:
		sub.Owned = m.Owned
	case assign.NameSticky:
		sub.UserData = wire.AppendStickyUserData(nil, m.Owned, m.Generation, m.Generation >= 0)
	}
	return wire.AppendSubscription(nil, &sub)
}

// joinResponse lists g's members as a JoinGroup response does, sorted as
// kgo sorts them before balancing.
func joinResponse(protocol string, g *assign.Group) []kmsg.JoinGroupResponseMember {
	out := make([]kmsg.JoinGroupResponseMember, len(g.Members))
	for i := range g.Members {
		m := &g.Members[i]
		out[i] = kmsg.JoinGroupResponseMember{MemberID: m.ID, ProtocolMetadata: metadataFor(protocol, m)}
		if m.InstanceID != "" {
			out[i].InstanceID = kmsg.StringPtr(m.InstanceID)
		}
	}
	slices.SortFunc(out, func(a, b kmsg.JoinGroupResponseMember) int {
		switch {
		case a.InstanceID != nil && b.InstanceID != nil:
			return strings.Compare(*a.InstanceID, *b.InstanceID)
		case a.InstanceID != nil:
			return -1
		case b.InstanceID != nil:
			return 1
		}
		return strings.Compare(a.MemberID, b.MemberID)
	})
	return out
}

// balanceInfo is what kgo tells the leader: the group, the generation and
// the cluster metadata. Each rack of g's replica racks becomes one broker,
// so that a partition's replicas are the brokers of its racks.
func balanceInfo(g *assign.Group) kgo.BalanceInfo {
	brokers := map[int32]kgo.BrokerMetadata{}
	brokerOf := map[string]int32{}
	topics := map[string]kgo.TopicMetadata{}
	for _, tp := range g.Topics {
		md := kgo.TopicMetadata{Topic: tp.Name, Partitions: make([]kgo.PartitionMetadata, 0, max(tp.Partitions, 0))}
		for p := range tp.Partitions {
			pm := kgo.PartitionMetadata{Topic: tp.Name, Partition: p}
			if int(p) < len(tp.Racks) {
				for _, rack := range tp.Racks[p] {
					id, ok := brokerOf[rack]
					if !ok {
						id = int32(len(brokerOf) + 1)
						brokerOf[rack] = id
						brokers[id] = kgo.BrokerMetadata{NodeID: id, Rack: kmsg.StringPtr(rack)}
					}
					pm.Replicas = append(pm.Replicas, id)
				}
			}
			md.Partitions = append(md.Partitions, pm)
		}
		topics[tp.Name] = md
	}
	leaderID := ""
	if len(g.Members) > 0 {
		leaderID = g.Members[0].ID
	}
	return kgo.BalanceInfo{
		Group: "g", Generation: g.Generation, LeaderID: leaderID,
		Topics:  func() map[string]kgo.TopicMetadata { return topics },
		Brokers: func() map[int32]kgo.BrokerMetadata { return brokers },
	}
}

// lead balances g with b exactly as kgo does when b's member leads:
// MemberBalancer over the JoinGroup members, then SetBalanceInfo, then
// BalanceOrError with the partition counts of the subscribed topics the
// leader knows.
func lead(t shimtest.Fataler, b kgo.GroupBalancer, g *assign.Group) ([]kmsg.SyncGroupRequestGroupAssignment, error) {
	t.Helper()
	mb, interests, err := b.MemberBalancer(joinResponse(b.ProtocolName(), g))
	if err != nil {
		return nil, err
	}
	if ib, ok := mb.(kgo.GroupMemberBalancerInfo); ok {
		ib.SetBalanceInfo(balanceInfo(g))
	}
	counts := map[string]int32{}
	for _, tp := range g.Topics {
		if _, ok := interests[tp.Name]; ok {
			counts[tp.Name] = tp.Partitions
		}
	}
	into, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(counts)
	if err != nil {
		return nil, err
	}
	return into.IntoSyncAssignment(), nil
}

// decodeAll decodes every member's SyncGroup assignment.
func decodeAll(t shimtest.Fataler, out []kmsg.SyncGroupRequestGroupAssignment) map[string][]wire.TopicPartitions {
	t.Helper()
	m := map[string][]wire.TopicPartitions{}
	for _, a := range out {
		dec, err := wire.DecodeAssignment(a.MemberAssignment)
		if err != nil {
			t.Fatalf("member %s: %v", a.MemberID, err)
		}
		m[a.MemberID] = dec.Partitions
	}
	return m
}

// leader is the franz-go balancer in shimtest's shared leader tests: a
// cooperative-sticky balancer leading cooperativeGroup.
type leader struct{}

func (leader) Lead(t *testing.T, c *client.Client, o shimtest.LeaderOptions) (shimtest.Balance, error) {
	var rep kgoassign.Report
	opts := append(shimtest.Options(o, kgoassign.WithLogger, kgoassign.WithMeterProvider, kgoassign.WithTimeout),
		kgoassign.WithObserver(func(r kgoassign.Report) { rep = r }))
	b := kgoassign.CooperativeSticky(c, opts...)
	g := cooperativeGroup()
	for i := range g.Members {
		if g.Members[i].ID == o.Broken {
			g.Members[i].Topics = append([]string{""}, g.Members[i].Topics...)
		}
	}
	out, err := lead(t, b, g)
	// What SyncGroup carries, in order: each member's id and bytes.
	sync := make([]string, len(out))
	for i, a := range out {
		sync[i] = fmt.Sprintf("%s=%x", a.MemberID, a.MemberAssignment)
	}
	return shimtest.Balance{Out: sync, Stats: b.Stats(), Report: rep.BalanceReport}, err
}
