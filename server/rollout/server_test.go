package rollout_test

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/grpc"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/rollout"
	"github.com/assignd/assignd/testbed/inproc"
)

// serve runs an assignd choosing with src and opts on an in-memory
// listener until the test ends and returns it with a connection to it.
func serve(t *testing.T, src *policy.Source, opts ...server.Option) (*server.Server, *grpc.ClientConn) {
	t.Helper()
	srv, err := server.New(src, slog.New(slog.DiscardHandler), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return srv, inproc.Dial(t, srv)
}

// The rollout state shows in RolloutStatus, in ExplainPolicy, on the
// console and in the metrics.
func TestVisibility(t *testing.T) {
	p := mustParse(t, gatedYAML)
	clk, h := clockedHistory(t)
	src := newSource(t, p)
	reader := sdkmetric.NewManualReader()
	local := &rollout.LocalLog{}
	c, err := rollout.New(src, h, local, rollout.WithClock(clk.Now), rollout.WithSwitchDelay(5*time.Second),
		rollout.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	local.Attach(c)
	// Two trusted groups, one moving 90% of its partitions: the gate
	// halts the rule at its first step.
	for _, d := range []decision{
		{group: "orders-1", rule: "canary", revision: p.Revision(), at: clk.Now().Add(time.Second), gen: 1, moved: 1, parts: 10, caller: "leader"},
		{group: "orders-2", rule: "canary", revision: p.Revision(), at: clk.Now().Add(time.Second), gen: 1, moved: 9, parts: 10, caller: "leader"},
	} {
		d.record(h)
	}
	c.Tick() // SERVING
	clk.Add(2 * time.Second)
	c.Tick() // the gate fails

	srv, conn := serve(t, src, server.WithExplainer(src), server.WithHistory(h), server.WithRolloutStatus(c))
	ctx := context.Background()

	status, err := assigndv1.NewRolloutServiceClient(conn).RolloutStatus(ctx, &assigndv1.RolloutStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(status.GetRules()) != 1 {
		t.Fatalf("RolloutStatus = %v", status)
	}
	r := status.GetRules()[0]
	if !r.GetHalted() || r.GetStep() != 0 || r.GetPercent() != 50 || len(r.GetFailures()) != 1 || r.GetFailures()[0].GetGroupId() != "orders-2" ||
		!strings.Contains(r.GetReason(), "max_moved_ratio failed on 1 group (orders-2)") {
		t.Errorf("RolloutStatus rule = %v", r)
	}

	e, err := assigndv1.NewAssignmentServiceClient(conn).ExplainPolicy(ctx, &assigndv1.ExplainPolicyRequest{GroupId: "orders-2", ProtocolName: "cooperative-sticky",
		Caller: &assigndv1.CallerIdentity{CommonName: "leader"}})
	if err != nil {
		t.Fatal(err)
	}
	if e.GetRollout().GetRule() != "canary" || !e.GetRollout().GetHalted() {
		t.Errorf("ExplainPolicy rollout = %v (rule %s)", e.GetRollout(), e.GetRule())
	}

	rec := httptest.NewRecorder()
	srv.OpsHandler(nil).ServeHTTP(rec, httptest.NewRequest("GET", "/console/", nil))
	body, _ := io.ReadAll(rec.Result().Body)
	if !strings.Contains(string(body), `<tr data-rule="canary">`) || !strings.Contains(string(body), "halted") {
		t.Errorf("console fleet page has no rollout section:\n%s", body)
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Gauge[int64]:
				for _, dp := range d.DataPoints {
					got[m.Name] += dp.Value
				}
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					if v, _ := dp.Attributes.Value("reason"); v.AsString() == rollout.MeasureMovedRatio {
						got[m.Name] += dp.Value
					}
				}
			}
		}
	}
	if got["assignd.policy.rollout.step"] != 1 || got["assignd.policy.rollout.halted"] != 1 || got["assignd.policy.rollout.halts"] != 1 {
		t.Errorf("metrics = %v", got)
	}
}

// The Decision of an Assign call served by a staged rule records the
// step that admitted the group and the rollout's agreed start.
func TestDecisionRecordsItsStep(t *testing.T) {
	p := mustParse(t, strings.Replace(stepYAML, "    rollout:\n", "    rollout:\n      include: [orders-in]\n", 1))
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	src := newSource(t, p)
	local := &rollout.LocalLog{}
	c, err := rollout.New(src, h, local, rollout.WithMeterProvider(noop.NewMeterProvider()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	local.Attach(c)
	c.Tick() // SERVING, applied at once: the rollout starts
	started := c.RuleStatus("canary").GetStartedAt()
	if started == nil {
		t.Fatal("the rollout did not start")
	}
	_, conn := serve(t, src, server.WithHistory(h))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, g := range []string{"orders-in", "billing"} {
		if _, err := assigndv1.NewAssignmentServiceClient(conn).Assign(ctx, &assigndv1.AssignRequest{
			GroupId: g, GenerationId: 1, ProtocolName: "cooperative-sticky", LeaderId: "a",
			Members: []*assigndv1.Member{{MemberId: "a", Topics: []string{"orders"}}},
			Topics:  []*assigndv1.Topic{{Name: "orders", PartitionCount: 4}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	// A Decision is recorded once the response is written.
	decisionOf := func(g string) *assigndv1.Decision {
		for {
			if _, ds, ok := h.Get(g, 1); ok && len(ds) > 0 {
				return ds[0]
			}
			select {
			case <-ctx.Done():
				t.Fatalf("no decision of %s recorded", g)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	if d := decisionOf("orders-in"); d.GetPolicyRule() != "canary" || d.GetRolloutStep() != 1 || !d.GetRolloutStarted().AsTime().Equal(started.AsTime()) {
		t.Errorf("decision of the staged rule: rule %s step %d started %v; want canary, 1, %v", d.GetPolicyRule(), d.GetRolloutStep(), d.GetRolloutStarted(), started)
	}
	if d := decisionOf("billing"); d.GetPolicyRule() == "canary" || d.GetRolloutStep() != 0 || d.GetRolloutStarted() != nil {
		t.Errorf("decision of a rule without steps: rule %s step %d started %v", d.GetPolicyRule(), d.GetRolloutStep(), d.GetRolloutStarted())
	}
}
