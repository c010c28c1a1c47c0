package assign_test

import (
	"slices"
	"sort"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/leader"
	"github.com/assignd/assignd/assign/wire"
)

// Differential test against franz-go's CooperativeStickyBalancer, driven as
// a leader drives it, on groups where nobody claims a partition another
// member also claims: both are fed the same JoinGroup metadata, and ours
// must be valid and never revoke more partitions from live members than
// franz-go does (its sticky balancer searches for steals on a graph and is
// a strong reference for movement).
func TestCooperativeStickyNeverMovesMoreThanFranzGo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.Owned(), assigntest.Members(1, 10), assigntest.Topics(1, 5),
			assigntest.Partitions(0, 24), assigntest.Protocol(assign.Cooperative)).Draw(t, "group")
		if rapid.Bool().Draw(t, "equal subscriptions") {
			g = assigntest.GroupGen(assigntest.Owned(), assigntest.EqualSubscriptions(), assigntest.Members(1, 10),
				assigntest.Topics(1, 5), assigntest.Partitions(0, 24), assigntest.Protocol(assign.Cooperative)).Draw(t, "equal group")
		}
		compareWithFranzGo(t, g)
	})
}

// The same comparison on larger groups whose ownership is a converged
// assignment followed by one random change: a member joins, leaves or
// changes its subscription. This is the shape real rebalances have.
func TestCooperativeStickyNeverMovesMoreThanFranzGoAfterChange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := []assigntest.GenOption{assigntest.Members(5, 30), assigntest.Topics(1, 8),
			assigntest.Partitions(1, 40), assigntest.Protocol(assign.Cooperative)}
		if rapid.Bool().Draw(t, "equal subscriptions") {
			opts = append(opts, assigntest.EqualSubscriptions())
		}
		g := assigntest.GroupGen(opts...).Draw(t, "group")
		g, r, _ := converge(t, assign.CooperativeSticky(), g, 3)
		next := assigntest.Edit(assigntest.NextGroup(g, r))
		switch victim := rapid.SampledFrom(g.Members).Draw(t, "member"); rapid.IntRange(0, 2).Draw(t, "change") {
		case 0:
			next.Member("zz-joiner", victim.Topics...)
		case 1:
			next.Remove(victim.ID)
		case 2:
			var topics []string
			for _, tp := range g.Topics {
				if rapid.Bool().Draw(t, "subscribe") {
					topics = append(topics, tp.Name)
				}
			}
			next.Remove(victim.ID).Member(victim.ID, topics...).Gen(victim.ID, g.Generation)
			for _, tp := range assigned(r, victim.ID) {
				next.Owns(victim.ID, tp.Topic, tp.Partitions...)
			}
		}
		compareWithFranzGo(t, next.Build())
	})
}

// compareWithFranzGo runs every cooperative-sticky version and franz-go's
// on the JoinGroup metadata of g and fails if ours revokes more.
func compareWithFranzGo(t *rapid.T, g *assign.Group) {
	{
		joined := make([]leader.JoinedMember, len(g.Members))
		kmembers := make([]kmsg.JoinGroupResponseMember, len(g.Members))
		for i, m := range g.Members {
			sub := wire.Subscription{Version: 3, Topics: m.Topics, Owned: m.Owned, Generation: m.Generation}
			md := wire.AppendSubscription(nil, &sub)
			joined[i] = leader.JoinedMember{ID: m.ID, Metadata: md}
			kmembers[i] = kmsg.JoinGroupResponseMember{MemberID: m.ID, ProtocolMetadata: md}
		}
		for _, a := range cooperativeAssignors {
			d, err := leader.Decode(joined, g.Topics, g.Generation, assign.Cooperative)
			if err != nil {
				t.Fatal(err)
			}
			r := run(t, a, d.Group, nil, balanced)
			ours := revokedFromLive(g, encodedByID(r, leader.Encode(r, d.Versions)))

			theirs := franzLeader(t, kgo.CooperativeStickyBalancer(), kmembers, g.Topics)
			if peer := revokedFromLive(g, theirs); ours > peer {
				t.Fatalf("%s revokes %d partitions, franz-go %d", assign.Ref(a), ours, peer)
			}
		}
	}
}

func encodedByID(r *assign.Result, enc [][]byte) map[string][]byte {
	out := make(map[string][]byte, len(enc))
	for i, m := range r.Members {
		out[m.ID] = enc[i]
	}
	return out
}

// revokedFromLive counts the partitions members own that their SyncGroup
// assignment does not give them.
func revokedFromLive(g *assign.Group, assignments map[string][]byte) int {
	n := 0
	for _, m := range g.Members {
		a, _ := wire.DecodeAssignment(assignments[m.ID])
		have := map[assigntest.TP]bool{}
		for _, tp := range a.Partitions {
			for _, p := range tp.Partitions {
				have[assigntest.TP{Topic: tp.Topic, Partition: p}] = true
			}
		}
		for _, tp := range m.Owned {
			for _, p := range tp.Partitions {
				if !have[assigntest.TP{Topic: tp.Topic, Partition: p}] {
					n++
				}
			}
		}
	}
	return n
}

// The eager sticky assignor against franz-go's StickyBalancer: history in
// StickyAssignorUserData V1 (the members' previous assignment and its
// generation), nothing owned on the wire, as eager members send it. Ours
// must be valid, balanced, and never move more partitions away from their
// previous owner than franz-go.
func TestStickyNeverMovesMoreThanFranzGo(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		opts := []assigntest.GenOption{assigntest.Owned(), assigntest.Members(1, 12), assigntest.Topics(1, 5),
			assigntest.Partitions(0, 30), assigntest.Protocol(assign.Eager)}
		if rapid.Bool().Draw(t, "equal subscriptions") {
			opts = append(opts, assigntest.EqualSubscriptions())
		}
		g := assigntest.GroupGen(opts...).Draw(t, "group")
		prev := map[assigntest.TP]string{}
		var joined []leader.JoinedMember
		var kmembers []kmsg.JoinGroupResponseMember
		for i := range g.Members {
			m := &g.Members[i]
			gen := max(m.Generation, 0)
			m.UserData = wire.AppendStickyUserData(nil, m.Owned, gen, true)
			for _, tp := range m.Owned {
				for _, p := range tp.Partitions {
					prev[assigntest.TP{Topic: tp.Topic, Partition: p}] = m.ID
				}
			}
			sub := wire.Subscription{Version: 3, Topics: m.Topics, UserData: m.UserData, Generation: assign.NoGeneration}
			md := wire.AppendSubscription(nil, &sub)
			joined = append(joined, leader.JoinedMember{ID: m.ID, Metadata: md})
			kmembers = append(kmembers, kmsg.JoinGroupResponseMember{MemberID: m.ID, ProtocolMetadata: md})
		}
		d, err := leader.Decode(joined, g.Topics, g.Generation, assign.Eager)
		if err != nil {
			t.Fatal(err)
		}
		r := run(t, assign.Sticky(), d.Group, nil, balanced)
		ours := movedFromPrevious(prev, encodedByID(r, leader.Encode(r, d.Versions)))

		theirs := franzLeader(t, kgo.StickyBalancer(), kmembers, g.Topics)
		if peer := movedFromPrevious(prev, theirs); ours > peer {
			t.Fatalf("sticky moves %d partitions away from their previous owner, franz-go %d", ours, peer)
		}
	})
}

// movedFromPrevious counts previously assigned partitions that the
// SyncGroup assignments give to another member.
func movedFromPrevious(prev map[assigntest.TP]string, assignments map[string][]byte) int {
	n := 0
	for id, b := range assignments {
		a, _ := wire.DecodeAssignment(b)
		for _, tp := range a.Partitions {
			for _, p := range tp.Partitions {
				if was, ok := prev[assigntest.TP{Topic: tp.Topic, Partition: p}]; ok && was != id {
					n++
				}
			}
		}
	}
	return n
}

// franzLeader runs a franz-go balancer as a group leader does (members in
// id order, MemberBalancer, BalanceOrError, IntoSyncAssignment) and returns
// each member's SyncGroup assignment bytes.
func franzLeader(t interface{ Fatal(...any) }, b kgo.GroupBalancer, members []kmsg.JoinGroupResponseMember, topics []assign.Topic) map[string][]byte {
	members = slices.Clone(members)
	sort.Slice(members, func(i, j int) bool { return members[i].MemberID < members[j].MemberID })
	mb, _, err := b.MemberBalancer(members)
	if err != nil {
		t.Fatal(err)
	}
	counts := make(map[string]int32, len(topics))
	for _, tp := range topics {
		counts[tp.Name] = tp.Partitions
	}
	into, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(counts)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]byte)
	for _, sa := range into.IntoSyncAssignment() {
		out[sa.MemberID] = sa.MemberAssignment
	}
	return out
}
