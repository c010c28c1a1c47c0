package kgoassign_test

import (
	"strings"
	"testing"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/testbed/grouplab"
)

// TestE2EHistory runs real franz-go consumers through the shim on kfake
// and checks that assignd's group history matches what happened: every
// decision carries the shim's user agent and the members, the rolling
// restart's rebalances are all recorded, and the rebalances led while
// assignd was down (the leaders fell back in-process) show as a
// generation gap.
func TestE2EHistory(t *testing.T) {
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	lab, ctx := startLab(t, 120*time.Second, grouplab.WithAssigndOptions(server.WithHistory(h)))
	start(t, ctx, lab, grouplab.Shim, "m0", "m1", "m2")
	// A rolling restart: each member leaves and comes back once.
	restart(t, ctx, lab, "m0")
	restart(t, ctx, lab, "m1")
	restart(t, ctx, lab, "m2")

	page, err := h.List(history.Query{})
	if err != nil {
		t.Fatal(err)
	}
	groups := page.Groups
	if len(groups) != 1 {
		t.Fatalf("history holds %d groups, want the lab's one", len(groups))
	}
	group := groups[0].GetGroupId()
	sum, ds, _ := h.Get(group, 0)
	t.Logf("rolling restart: %d decisions recorded, signals %v", sum.GetDecisionsRecorded(), sum.GetSignals())
	for _, s := range sum.GetSignals() {
		switch s.GetSignal() {
		case assigndv1.GroupSignal_GROUP_SIGNAL_GENERATION_GAP:
			t.Errorf("generation gap while assignd led every rebalance: %s", s.GetReason())
		case assigndv1.GroupSignal_GROUP_SIGNAL_REBALANCE_STORM:
			t.Errorf("a rolling restart is not a storm: %s", s.GetReason())
		}
	}
	for _, d := range ds {
		if !strings.HasPrefix(d.GetUserAgent(), "assignd-go/") || d.GetCaller() != nil || len(d.GetInputDigest()) != 32 {
			t.Errorf("generation %d: user agent %q, caller %v, digest %x; want the shim's assignd-go agent, unauthenticated, a digest",
				d.GetGenerationId(), d.GetUserAgent(), d.GetCaller(), d.GetInputDigest())
		}
		if d.GetProtocolName() != "cooperative-sticky" || d.GetRebalanceProtocol() != assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE {
			t.Errorf("generation %d: %s %s", d.GetGenerationId(), d.GetProtocolName(), d.GetRebalanceProtocol())
		}
	}
	if ds[0].GetMemberCount() != 3 {
		t.Errorf("latest decision has %d members, want 3", ds[0].GetMemberCount())
	}

	// assignd down: the next rebalances are led by the fallback.
	if err := lab.StopAssignd(ctx); err != nil {
		t.Fatal(err)
	}
	restart(t, ctx, lab, "m1'")
	if err := lab.StartAssignd(); err != nil {
		t.Fatal(err)
	}
	if err := lab.WaitAssignd(ctx); err != nil {
		t.Fatal(err)
	}
	restart(t, ctx, lab, "m2'")
	finish(t, ctx, lab)

	sum, ds, _ = h.Get(group, 0)
	var gap string
	for _, s := range sum.GetSignals() {
		if s.GetSignal() == assigndv1.GroupSignal_GROUP_SIGNAL_GENERATION_GAP {
			gap = s.GetReason()
		}
	}
	if gap == "" {
		t.Errorf("no generation gap after rebalances led by the fallback; signals %v", sum.GetSignals())
	} else {
		t.Logf("generation gap: %s", gap)
	}
	for i := 1; i < len(ds); i++ {
		if ds[i-1].GetGenerationId() < ds[i].GetGenerationId() {
			t.Errorf("decisions out of order: generation %d before %d", ds[i-1].GetGenerationId(), ds[i].GetGenerationId())
		}
	}
}
