package assign_test

import (
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// Revoked is what a member reports owning (Member.Owned) and must give up
// this round, under EAGER as under COOPERATIVE, for every assignor: m1
// owned everything, m2 joins. c is a topic nobody subscribes to any more;
// a-9 does not exist (ignored). The sticky assignor reads history from
// user data, but Revoked from what the member reports owning.
func TestRevokedUnderBothProtocols(t *testing.T) {
	base := assigntest.NewGroup().Topic("a", 4).Topic("b", 2).Topic("c", 1).
		Member("m1", "a", "b").Owns("m1", "a", 0, 1, 2, 3, 9).Owns("m1", "b", 0, 1).Owns("m1", "c", 0).Gen("m1", 1).
		Member("m2", "a", "b").Generation(2)
	eager := assigntest.Edit(base.Build()).Protocol(assign.Eager).Build()
	coop := assigntest.Edit(base.Build()).Protocol(assign.Cooperative).Build()
	noUserData := eager
	userDataOnly := assigntest.Edit(asStickyEager(eager)).Disown("m1").Build()
	cases := []struct {
		name string
		a    assign.Assignor
		g    *assign.Group
		want string // m1's Revoked; m2 owns nothing and revokes nothing
	}{
		{"range", assign.Range(), eager, "a:2,3 b:1 c:0"},
		{"roundrobin", assign.RoundRobin(), eager, "a:1,3 b:1 c:0"},
		{"sticky", assign.Sticky(), asStickyEager(eager), "a:2,3 b:1 c:0"},
		// Without user data sticky has no history and deals afresh; the
		// member still reported owning everything.
		{"sticky, owned without user data", assign.Sticky(), noUserData, "a:1,3 b:1 c:0"},
		// A Java eager member revokes everything before it rejoins and
		// reports owning nothing: nothing to revoke, though its user data
		// keeps the history.
		{"sticky, user data without owned", assign.Sticky(), userDataOnly, ""},
		{"cooperative-sticky@1 EAGER", assign.CooperativeSticky(), eager, "a:2,3 b:1 c:0"},
		{"cooperative-sticky@2 EAGER", assign.CooperativeStickyPerTopic(), eager, "a:2,3 b:1 c:0"},
		{"cooperative-sticky@1 COOPERATIVE", assign.CooperativeSticky(), coop, "a:2,3 b:1 c:0"},
		{"cooperative-sticky@2 COOPERATIVE", assign.CooperativeStickyPerTopic(), coop, "a:2,3 b:1 c:0"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.a, tc.g, nil, balanced)
			got := revokedLayout(r)
			if got["m1"] != tc.want || got["m2"] != "" {
				t.Errorf("revoked m1 %q m2 %q, want m1 %q m2 \"\"", got["m1"], got["m2"], tc.want)
			}
			want := strings.Count(tc.want, ",") + strings.Count(tc.want, ":")
			if r.Stats.Revoked != want {
				t.Errorf("Stats.Revoked = %d, want %d", r.Stats.Revoked, want)
			}
		})
	}
}

// Issue 27, item 3: a member that loses a stale or contested claim while
// nothing is pending still revokes it and rejoins (the Java client's
// onJoinComplete requests a rejoin whenever owned minus assigned is not
// empty; franz-go rejoins after revoking what it lost), so the result
// says a follow-up follows; the follow-up then changes nothing.
func TestLostClaimRequiresFollowup(t *testing.T) {
	g := assigntest.NewGroup().Protocol(assign.Cooperative).Topic("t", 2).
		Member("a", "t").Owns("a", "t", 0).Gen("a", 2).
		Member("b", "t").Owns("b", "t", 0, 1).Gen("b", 1).
		Build()
	r := run(t, assign.CooperativeSticky(), g, nil, balanced)
	if len(r.Pending) != 0 || !r.FollowupRequired {
		t.Fatalf("pending %v, followup %v: want nothing pending and a follow-up (b revokes its stale claim on t-0)", r.Pending, r.FollowupRequired)
	}
	r2 := run(t, assign.CooperativeSticky(), assigntest.NextGroup(g, r), nil, balanced)
	if r2.FollowupRequired || r2.Stats.Moved != 0 {
		t.Fatalf("the follow-up moved %d, followup %v: want nothing", r2.Stats.Moved, r2.FollowupRequired)
	}
}
