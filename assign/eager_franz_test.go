package assign_test

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// Differential tests against franz-go's RangeBalancer and
// RoundRobinBalancer, driven as a franz-go group leader drives them: encode
// each member's ConsumerMemberMetadata, sort the JoinGroup members (the
// leader's balanceGroup does that before MemberBalancer; roundrobin deals
// in that order), MemberBalancer, BalanceOrError, IntoSyncAssignment,
// decode each member's assignment.
//
// What we found about franz-go v1.22.3:
//   - Members are ordered like Java's MemberInfo (static members first by
//     instance id, then dynamic members by member id), but with Go's byte
//     order, which differs from Java's UTF-16 order when ids mix
//     U+E000-U+FFFF with characters above U+FFFF. We follow Java; the
//     differential test uses ASCII ids, static members included.
//   - RoundRobinBalancer deals in the order of the members passed to
//     MemberBalancer; it relies on the leader having sorted them.
//   - RangeBalancer's rack awareness is its own (the leader's rack only,
//     behind a client option, no co-partitioned groups), not KIP-881; the
//     differential test has no racks, and rack-aware range is checked
//     against the Java model in eager_model_test.go instead.

// franzLess is the franz-go leader's member order.
func franzLess(l, r *kmsg.JoinGroupResponseMember) bool {
	switch {
	case l.InstanceID != nil && r.InstanceID != nil:
		return *l.InstanceID < *r.InstanceID
	case l.InstanceID != nil:
		return true
	case r.InstanceID != nil:
		return false
	}
	return l.MemberID < r.MemberID
}

// franzMembers encodes g's members as JoinGroup members, sorted as the
// franz-go leader sorts them.
func franzMembers(g *assign.Group) []kmsg.JoinGroupResponseMember {
	out := make([]kmsg.JoinGroupResponseMember, 0, len(g.Members))
	for _, m := range g.Members {
		meta := kmsg.NewConsumerMemberMetadata()
		meta.Version = 3
		meta.Topics = slices.Clone(m.Topics)
		meta.Generation = m.Generation
		jm := kmsg.NewJoinGroupResponseMember()
		jm.MemberID = m.ID
		if m.InstanceID != "" {
			jm.InstanceID = &m.InstanceID
		}
		jm.ProtocolMetadata = meta.AppendTo(nil)
		out = append(out, jm)
	}
	sort.Slice(out, func(i, j int) bool { return franzLess(&out[i], &out[j]) })
	return out
}

// franzLayout runs a franz-go balancer as a leader would and renders the
// result as layout does.
func franzLayout(t checkT, b kgo.GroupBalancer, g *assign.Group) map[string]string {
	t.Helper()
	members := franzMembers(g)
	mb, _, err := b.MemberBalancer(members)
	if err != nil {
		t.Fatalf("franz-go MemberBalancer: %v", err)
	}
	topics := make(map[string]int32, len(g.Topics))
	for _, top := range g.Topics {
		topics[top.Name] = top.Partitions
	}
	into, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(topics)
	if err != nil {
		t.Fatalf("franz-go BalanceOrError: %v", err)
	}
	out := make(map[string]string, len(members))
	for _, a := range into.IntoSyncAssignment() {
		var ca kmsg.ConsumerMemberAssignment
		if err := ca.ReadFrom(a.MemberAssignment); err != nil {
			t.Fatalf("franz-go assignment for %s: %v", a.MemberID, err)
		}
		sort.Slice(ca.Topics, func(i, j int) bool { return ca.Topics[i].Topic < ca.Topics[j].Topic })
		var parts []string
		for _, tp := range ca.Topics {
			if len(tp.Partitions) == 0 {
				continue
			}
			ps := slices.Sorted(slices.Values(tp.Partitions))
			s := make([]string, len(ps))
			for i, p := range ps {
				s[i] = fmt.Sprint(p)
			}
			parts = append(parts, tp.Topic+":"+strings.Join(s, ","))
		}
		out[a.MemberID] = strings.Join(parts, " ")
	}
	return out
}

func TestEagerMatchesFranzGo(t *testing.T) {
	peers := []struct {
		ours   assign.Assignor
		theirs kgo.GroupBalancer
	}{
		{assign.Range(), kgo.RangeBalancer()},
		{assign.RoundRobin(), kgo.RoundRobinBalancer()},
	}
	shapes := map[string][]assigntest.GenOption{
		"small":   {assigntest.StaticMembers(), assigntest.MissingTopics()},
		"equal":   {assigntest.EqualSubscriptions(), assigntest.StaticMembers(), assigntest.Members(1, 30), assigntest.Partitions(0, 50)},
		"unequal": {assigntest.Members(5, 40), assigntest.Topics(3, 10), assigntest.Partitions(0, 30)},
	}
	for _, peer := range peers {
		for name, shape := range shapes {
			t.Run(peer.ours.Name()+"/"+name, func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) {
					g := assigntest.GroupGen(shape...).Draw(t, "group")
					got := layout(run(t, peer.ours, g, nil))
					if want := franzLayout(t, peer.theirs, g); !maps.Equal(got, want) {
						t.Fatalf("differs from franz-go %s:\n ours   %q\n theirs %q", peer.theirs.ProtocolName(), got, want)
					}
				})
			})
		}
	}
}

// Where Go byte order and Java UTF-16 order disagree, we follow Java: the
// one known difference from franz-go, asserted on both sides.
func TestEagerInstanceOrderFollowsJavaNotFranzGo(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 3).
		Member("a", "t").Static("a", "\uE000").
		Member("b", "t").Static("b", "\U00010000").
		Build()
	// Java compares instance ids as UTF-16 ("\U00010000", a surrogate
	// pair, sorts before "\uE000"); franz-go compares bytes (the other way
	// round). Both sides are asserted, so that a franz-go that starts to
	// order like Java fails here: UnicodeIDs could then join the
	// differential test.
	for _, peer := range []struct {
		ours   assign.Assignor
		theirs kgo.GroupBalancer
		want   map[string]string // Java's order: b before a
		franz  map[string]string // byte order: a before b
	}{
		{assign.Range(), kgo.RangeBalancer(), map[string]string{"a": "t:2", "b": "t:0,1"}, map[string]string{"a": "t:0,1", "b": "t:2"}},
		{assign.RoundRobin(), kgo.RoundRobinBalancer(), map[string]string{"a": "t:1", "b": "t:0,2"}, map[string]string{"a": "t:0,2", "b": "t:1"}},
	} {
		r := run(t, peer.ours, g, nil)
		wantLayout(t, r, peer.want)
		if theirs := franzLayout(t, peer.theirs, g); !maps.Equal(theirs, peer.franz) {
			t.Errorf("franz-go %s: %q, want byte order %q (Java order: %q); if franz-go now orders like Java, UnicodeIDs could join the differential test",
				peer.theirs.ProtocolName(), theirs, peer.franz, layout(r))
		}
	}
}
