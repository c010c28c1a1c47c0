package server_test

import (
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// target_assignment (the KIP-848 plugin's mode): the response is the
// engine's WithTarget result and says so; the same group without it is a
// classic COOPERATIVE round that withholds and asks for a follow-up.
func TestTargetAssignmentMode(t *testing.T) {
	ts := startServer(t, nil)
	g := assigntest.NewGroup().Protocol(assign.Cooperative).Topic("a", 4).
		Member("m1", "a").Owns("m1", "a", 0, 1, 2, 3).Gen("m1", 1).Member("m2", "a").Generation(2).Build()
	for _, tc := range []struct {
		target   bool
		protocol assigndv1.RebalanceProtocol // the request's; unspecified: the name's default
	}{
		{false, assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE},
		{true, assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE},
		{true, assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED},
	} {
		req, _ := requestFor(t, g, "cooperative-sticky")
		req.TargetAssignment, req.RebalanceProtocol = tc.target, tc.protocol
		resp, err := ts.client.Assign(callCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := assign.Run(assign.CooperativeSticky(), g, assign.WithTarget(tc.target))
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetTargetAssignment() != tc.target {
			t.Errorf("target %v: response says target_assignment=%v", tc.target, resp.GetTargetAssignment())
		}
		if got := resp.GetFollowupRequired(); got != want.FollowupRequired || got == tc.target {
			t.Errorf("target %v: followup_required %v, engine %v", tc.target, got, want.FollowupRequired)
		}
		if len(resp.GetPending()) != len(want.Pending) {
			t.Errorf("target %v: pending %v, engine %v", tc.target, resp.GetPending(), want.Pending)
		}
		for i, ma := range resp.GetAssignments() {
			if got, w := tpsIn(ma.GetPartitions()), want.Members[i].Assigned; !equalTPs(got, w) {
				t.Errorf("target %v: %s gets %v, engine %v", tc.target, ma.GetMemberId(), got, w)
			}
		}
	}
}
