package server_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/leader"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/selection"
)

// TestSameBytesAsLeaderCodec: for a leader's raw-metadata request the
// service answers with exactly the bytes the client shim's local fallback
// computes (leader.Decode, the assignor, leader.Encode), so a group gets
// the same SyncGroup payload whether assignd or the fallback served it.
func TestSameBytesAsLeaderCodec(t *testing.T) {
	ts := startServer(t, nil)
	ctx := callCtx(t)
	rapid.Check(t, func(rt *rapid.T) {
		name, a := drawStandard(rt)
		proto := a.Protocols()[0]
		g := assigntest.GroupGen(assigntest.Members(0, 10), assigntest.Topics(1, 4), assigntest.Partitions(0, 12),
			assigntest.Owned(), assigntest.MissingTopics(), assigntest.WithRacks(), assigntest.Protocol(proto)).Draw(rt, "group")
		forms := rapid.SliceOfN(rapid.SampledFrom([]form{0, 1, 2, 3}), 1, 4).Draw(rt, "versions")
		req, _ := requestFor(rt, g, name, forms...)
		resp, err := ts.client.Assign(ctx, req)
		if err != nil {
			rt.Fatalf("Assign: %v", err)
		}

		joined := make([]leader.JoinedMember, len(req.GetMembers()))
		for i, m := range req.GetMembers() {
			joined[i] = leader.JoinedMember{ID: m.GetMemberId(), InstanceID: m.GetGroupInstanceId(), Metadata: m.GetMetadata()}
		}
		d, err := leader.Decode(joined, g.Topics, g.Generation, g.Protocol)
		if err != nil {
			rt.Fatal(err)
		}
		res, err := assign.Run(a, d.Group)
		if err != nil {
			rt.Fatal(err)
		}
		want := leader.Encode(res, d.Versions)
		if len(want) != len(resp.GetAssignments()) {
			rt.Fatalf("%d assignments, the codec %d", len(resp.GetAssignments()), len(want))
		}
		for i, got := range resp.GetAssignments() {
			if got.GetMemberId() != res.Members[i].ID || !bytes.Equal(got.GetAssignment(), want[i]) {
				rt.Errorf("member %s: bytes %x, the codec's %x", got.GetMemberId(), got.GetAssignment(), want[i])
			}
		}
	})
}

// fixedSelector runs one assignor and asks for a rebalance protocol.
type fixedSelector struct {
	a     assign.Assignor
	proto assign.RebalanceProtocol
}

func (s fixedSelector) Select(context.Context, selection.Query) (selection.Selection, error) {
	return selection.Selection{Assignor: s.a, Protocol: s.proto, Policy: "pinned/1"}, nil
}

// TestSelectionProtocol: the Selector's protocol runs when the request
// leaves it unspecified, and only then.
func TestSelectionProtocol(t *testing.T) {
	eager := assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
	coop := assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE
	unspecified := assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_UNSPECIFIED
	for _, tc := range []struct {
		selected  assign.RebalanceProtocol
		requested assigndv1.RebalanceProtocol
		want      assigndv1.RebalanceProtocol
	}{
		{assign.Eager, unspecified, eager},
		{assign.ProtocolUnspecified, unspecified, coop}, // the assignor's default
		{assign.Eager, coop, coop},
		{assign.Cooperative, eager, eager},
	} {
		ts := startServer(t, fixedSelector{assign.CooperativeSticky(), tc.selected})
		g := assigntest.NewGroup().Topic("a", 4).Member("m1", "a").Member("m2", "a").Owns("m1", "a", 0, 1, 2, 3).Build()
		// A name of the policy's own: the standard eager-only names
		// refuse COOPERATIVE before any Selector is asked.
		req, _ := requestFor(t, g, "custom-sticky", 3)
		req.RebalanceProtocol = tc.requested
		resp, err := ts.client.Assign(callCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetRebalanceProtocol() != tc.want {
			t.Errorf("selected %s, requested %s: ran %s, want %s", tc.selected, tc.requested, resp.GetRebalanceProtocol(), tc.want)
		}
		// Under EAGER nothing is withheld; under COOPERATIVE m1's moving
		// partitions are.
		if resp.GetFollowupRequired() != (tc.want == coop) {
			t.Errorf("selected %s, requested %s: followup %t", tc.selected, tc.requested, resp.GetFollowupRequired())
		}
		want := strings.TrimPrefix(tc.want.String(), "REBALANCE_PROTOCOL_")
		if lines := ts.logs.lines(t, "finished call"); len(lines) != 1 || lines[0]["protocol"] != want {
			t.Errorf("call log %v, want protocol %s", lines, want)
		}
	}
}
