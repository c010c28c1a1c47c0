package consoletest

import (
	"context"
	"strings"
	"testing"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/testbed/grouplab"
	"github.com/assignd/assignd/testbed/policytest"
	"github.com/assignd/assignd/testbed/shimtest"
)

// fleetPolicy runs the standard assignors and shadows every group with
// cooperative-sticky@2, so that the console has a comparison to show.
const fleetPolicy = `version: 1
rules:
  - name: default
    shadow:
      assignor: cooperative-sticky@2
`

// The fleet's groups and what happens to each.
const (
	// Four members join one by one, one leaves, then a rolling restart:
	// no storm, no gap.
	steadyGroup = "payments-eu"
	// One member joins and leaves three times beside a stable one: a
	// storm, by the flapping member.
	flapGroup = "orders-flap"
	// A member crashes, then assignd is down for one rebalance, which the
	// leader's fallback decides: a generation gap, and no storm.
	crashGroup = "billing-eu"
)

// fleet is what the fleet left: the shared history and the policy that
// served every lab's assignd.
type fleet struct {
	history *history.Store
	policy  *policy.Source
}

// TestFleet runs the fleet, checks that the history and the signals match
// what happened, then shows the console in Chromium (browser_test.go).
func TestFleet(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three kfake brokers and nine franz-go consumers")
	}
	f := runFleet(t)
	if t.Failed() {
		return
	}
	checkHistory(t, f)
	t.Run("console in Chromium", func(t *testing.T) { browse(t, f) })
}

// runFleet runs the three groups at once, each on its own kfake broker
// and in-process assignd, every assignd recording into one history.
func runFleet(t *testing.T) fleet {
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.Parse("fleet.yaml", []byte(fleetPolicy))
	if err != nil {
		t.Fatal(err)
	}
	// Shadow runs are recorded as assignd records them (cmd/assignd).
	record := func(_ context.Context, r policy.ShadowRun) {
		h.Record(history.ShadowDecision(history.Shadow{
			Time: time.Now(), Group: r.Group, ProtocolName: r.ProtocolName, Assignor: r.Shadow,
			Rule: r.Rule, Revision: r.Revision, Input: r.Input, Result: r.Result, Took: r.Took,
		}))
	}
	src := policytest.ServePolicy(t, p, policy.WithLogger(shimtest.Quiet), policy.WithShadowRecorder(record))
	f := fleet{history: h, policy: src}
	t.Run("groups", func(t *testing.T) {
		for _, g := range []struct {
			name   string
			topics []grouplab.Topic
			run    func(*testing.T, context.Context, *grouplab.Lab)
		}{
			{steadyGroup, []grouplab.Topic{{Name: "orders", Partitions: 12}, {Name: "refunds", Partitions: 6}}, steady},
			{flapGroup, []grouplab.Topic{{Name: "events", Partitions: 8}}, flapping},
			{crashGroup, []grouplab.Topic{{Name: "invoices", Partitions: 9}}, crashAndFallback},
		} {
			t.Run(g.name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
				defer cancel()
				lab, err := grouplab.New(g.topics, grouplab.WithGroup(g.name), grouplab.WithLogger(shimtest.Quiet),
					grouplab.WithSessionTimeout(2*time.Second), grouplab.WithSelector(src), grouplab.WithAssigndOptions(server.WithHistory(h)))
				if err != nil {
					t.Fatal(err)
				}
				defer lab.Close()
				g.run(t, ctx, lab)
			})
		}
	})
	return f
}

func steady(t *testing.T, ctx context.Context, lab *grouplab.Lab) {
	for _, n := range []string{"pay-0", "pay-1", "pay-2", "pay-3"} {
		join(t, ctx, lab, n, n)
	}
	leave(t, ctx, lab, "pay-3")
	// The rolling restart: each process stops and starts again, keeping
	// its client id as a redeployed pod does. Each member has joined twice
	// in the storm window then, below the flapping threshold of three.
	for _, n := range []string{"pay-0", "pay-1", "pay-2"} {
		leave(t, ctx, lab, n)
		join(t, ctx, lab, n+"'", n)
	}
}

func flapping(t *testing.T, ctx context.Context, lab *grouplab.Lab) {
	join(t, ctx, lab, "stable", "stable")
	for _, n := range []string{"flap-1", "flap-2", "flap-3"} {
		join(t, ctx, lab, n, "flappy")
		leave(t, ctx, lab, n)
	}
}

func crashAndFallback(t *testing.T, ctx context.Context, lab *grouplab.Lab) {
	for _, n := range []string{"bill-0", "bill-1", "bill-2"} {
		join(t, ctx, lab, n, n)
	}
	lab.Member(t, "bill-2").Kill()
	settle(t, ctx, lab)
	// assignd unreachable for one rebalance: the leader's fallback
	// decides it, and assignd never sees that generation.
	if err := lab.StopAssignd(ctx); err != nil {
		t.Fatal(err)
	}
	join(t, ctx, lab, "bill-2'", "bill-2")
	if err := lab.StartAssignd(); err != nil {
		t.Fatal(err)
	}
	if err := lab.WaitAssignd(ctx); err != nil {
		t.Fatal(err)
	}
	leave(t, ctx, lab, "bill-1")
	join(t, ctx, lab, "bill-1'", "bill-1")
}

func join(t *testing.T, ctx context.Context, lab *grouplab.Lab, name, clientID string) {
	t.Helper()
	if _, err := lab.StartMember(name, grouplab.Shim, grouplab.AsClient(clientID)); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx, lab)
}

func leave(t *testing.T, ctx context.Context, lab *grouplab.Lab, name string) {
	t.Helper()
	if err := lab.Member(t, name).Leave(ctx); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx, lab)
}

func settle(t *testing.T, ctx context.Context, lab *grouplab.Lab) {
	t.Helper()
	if err := lab.Settle(ctx); err != nil {
		t.Fatal(err)
	}
}

// checkHistory compares the history with what the fleet did.
func checkHistory(t *testing.T, f fleet) {
	page, err := f.history.List(history.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 3 {
		t.Fatalf("history holds %d groups, want the fleet's 3", page.Total)
	}
	const (
		storm = assigndv1.GroupSignal_GROUP_SIGNAL_REBALANCE_STORM
		gap   = assigndv1.GroupSignal_GROUP_SIGNAL_GENERATION_GAP
	)
	for _, g := range []struct {
		id                string
		members           int32
		partitions        int32
		storm, gap        bool
		stormSays, gapSay string
	}{
		{id: steadyGroup, members: 3, partitions: 18},
		// Each flap costs three rebalances (a join, its cooperative
		// follow-up, a leave): the storm fires by count and names the
		// member, whose joins outlive the 8 decisions kept.
		{id: flapGroup, members: 1, partitions: 8, storm: true, stormSays: `member "flappy" joined 3 times`},
		{id: crashGroup, members: 3, partitions: 9, gap: true, gapSay: "never reached assignd"},
	} {
		sum, ds, ok := f.history.Get(g.id, 0)
		if !ok {
			t.Errorf("%s: not in the history", g.id)
			continue
		}
		t.Logf("%s: %d decisions, generation %d, signals %v", g.id, sum.GetDecisionsRecorded(), sum.GetGenerationId(), sum.GetSignals())
		reasons := map[assigndv1.GroupSignal]string{}
		for _, s := range sum.GetSignals() {
			reasons[s.GetSignal()] = s.GetReason()
		}
		if r, fired := reasons[storm]; fired != g.storm || !strings.Contains(r, g.stormSays) {
			t.Errorf("%s: storm fired %t (%q), want %t saying %q", g.id, fired, r, g.storm, g.stormSays)
		}
		if r, fired := reasons[gap]; fired != g.gap || !strings.Contains(r, g.gapSay) {
			t.Errorf("%s: generation gap fired %t (%q), want %t saying %q", g.id, fired, r, g.gap, g.gapSay)
		}
		if sum.GetMemberCount() != g.members || sum.GetPartitions() != g.partitions {
			t.Errorf("%s: latest decision has %d members and %d partitions, want %d and %d", g.id, sum.GetMemberCount(), sum.GetPartitions(), g.members, g.partitions)
		}
		if int64(sum.GetRebalancesLastHour()) != sum.GetDecisionsRecorded() {
			t.Errorf("%s: %d rebalances in the last hour, %d decisions recorded; every decision was in the last hour", g.id, sum.GetRebalancesLastHour(), sum.GetDecisionsRecorded())
		}
		latest := ds[0]
		var assigned int32
		for _, m := range latest.GetMembers() {
			for _, n := range m.GetAssignedByTopic() {
				assigned += n
			}
		}
		if assigned != g.partitions || !strings.HasPrefix(latest.GetUserAgent(), "assignd-go/") || latest.GetCaller() != nil {
			t.Errorf("%s: the latest decision assigns %d partitions by topic (want %d), user agent %q, caller %v (want the shim's, unauthenticated)",
				g.id, assigned, g.partitions, latest.GetUserAgent(), latest.GetCaller())
		}
	}
	// The crash group's gap is the fallback's generation: the one after
	// the decision before assignd went down.
	_, ds, _ := f.history.Get(crashGroup, 0)
	for i := 0; i+1 < len(ds); i++ {
		if ds[i].GetGenerationId() < ds[i+1].GetGenerationId() {
			t.Errorf("%s: decisions out of order: generation %d before %d", crashGroup, ds[i].GetGenerationId(), ds[i+1].GetGenerationId())
		}
	}
}
