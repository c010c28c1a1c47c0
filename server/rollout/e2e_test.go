package rollout_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/rollout"
	"github.com/assignd/assignd/testbed/grouplab"
	"github.com/assignd/assignd/testbed/shimtest"
)

// labPolicy puts the lab's group in a staged rule from its first step
// (include), with a gate on the moved ratio. assignor is the rule's; the
// shadow is the standard cooperative-sticky, the baseline.
func labPolicy(assignor, params string) string {
	return `version: 1
rules:
  - name: canary
    match: {groups: [rollout-lab]}
    assignor: ` + assignor + `
    params: ` + params + `
    shadow: {assignor: cooperative-sticky@1}
    rollout:
      include: [rollout-lab]
      steps: [{percent: 1, hold: 3s}, {percent: 50, hold: 3s}, {percent: 100}]
      gate: {min_groups: 1, max_moved_ratio: 0.4}
`
}

// lab is a real group of kgo members (through the shim, against the
// lab's in-process assignd on kfake) served by a policy, with a rollout
// Controller deciding alone (embedded: a LocalLog).
type lab struct {
	*grouplab.Lab
	c *rollout.Controller
}

func startLab(t *testing.T, ctx context.Context, yaml string) *lab {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test on kfake")
	}
	p := mustParse(t, yaml)
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	src, err := policy.NewSource(p, policy.WithMeterProvider(noop.NewMeterProvider()), policy.WithLogger(slog.New(slog.DiscardHandler)),
		policy.WithShadowRecorder(func(_ context.Context, r policy.ShadowRun) {
			h.Record(history.ShadowDecision(history.Shadow{
				Time: time.Now(), Group: r.Group, ProtocolName: r.ProtocolName, Assignor: r.Shadow,
				Rule: r.Rule, Revision: r.Revision, Input: r.Input, Result: r.Result, Took: r.Took,
			}))
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	local := &rollout.LocalLog{}
	c, err := rollout.New(src, h, local, rollout.WithTick(100*time.Millisecond), rollout.WithEvaluateEvery(200*time.Millisecond),
		rollout.WithSwitchDelay(0), rollout.WithRepublish(0), rollout.WithMeterProvider(noop.NewMeterProvider()))
	if err != nil {
		t.Fatal(err)
	}
	local.Attach(c)
	c.Start()
	t.Cleanup(func() { c.Close() })
	gl, err := grouplab.New([]grouplab.Topic{{Name: "orders", Partitions: 48}, {Name: "audit", Partitions: 12}},
		grouplab.WithGroup("rollout-lab"), grouplab.WithLogger(shimtest.Quiet), grouplab.WithSessionTimeout(2*time.Second),
		grouplab.WithSelector(src), grouplab.WithAssigndOptions(server.WithHistory(h)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(gl.Close)
	return &lab{Lab: gl, c: c}
}

// join starts members and waits for the group to settle.
func (l *lab) join(t *testing.T, ctx context.Context, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := l.StartMember(n, grouplab.Shim); err != nil {
			t.Fatal(err)
		}
		if err := l.Settle(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// await waits until the rule's status satisfies done, and returns it.
func (l *lab) await(t *testing.T, ctx context.Context, what string, done func(*assigndv1.RolloutRuleState) bool) *assigndv1.RolloutRuleState {
	t.Helper()
	for {
		st := l.c.RuleStatus("canary")
		if done(st) {
			return st
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: %v", what, st)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// A rule whose assignor moves no more than the one before it advances to
// its last step once its hold has passed.
func TestRealGroupRolloutAdvances(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l := startLab(t, ctx, labPolicy("cooperative-sticky@1", "{rack_aware: false}"))
	l.join(t, ctx, "m1", "m2", "m3")
	l.await(t, ctx, "step 2", func(st *assigndv1.RolloutRuleState) bool { return st.GetStep() == 1 || st.GetHalted() })
	// A rebalance in step 2, for its gate to see the group.
	l.join(t, ctx, "m4")
	st := l.await(t, ctx, "step 3", func(st *assigndv1.RolloutRuleState) bool { return st.GetStep() == 2 || st.GetHalted() })
	if st.GetHalted() || st.GetPercent() != 100 {
		t.Fatalf("status = %v", st)
	}
	if !strings.Contains(st.GetLastEvaluation(), "gate holds on 1 trusted group") {
		t.Errorf("last evaluation = %q", st.GetLastEvaluation())
	}
	if len(st.GetWarnings()) == 0 || !strings.Contains(st.GetWarnings()[0], "no bindings") {
		t.Errorf("no warning that every caller counts: %v", st.GetWarnings())
	}
}

// A rule whose assignor is not sticky (the broker's range) moves far more
// of the group than the shadow (cooperative-sticky) on the same inputs:
// max_moved_ratio halts it at its first step, naming the group.
func TestRealGroupRolloutHalts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	l := startLab(t, ctx, labPolicy("kip848-range@1", "{}"))
	l.join(t, ctx, "m1", "m2", "m3")
	st := l.await(t, ctx, "halt", func(st *assigndv1.RolloutRuleState) bool { return st.GetHalted() || st.GetStep() > 0 })
	if !st.GetHalted() || st.GetStep() != 0 || st.GetPercent() != 1 {
		t.Fatalf("status = %v", st)
	}
	if len(st.GetFailures()) == 0 {
		t.Fatalf("halted without failures: %v", st)
	}
	f := st.GetFailures()[0]
	if f.GetGroupId() != "rollout-lab" || f.GetMeasure() != rollout.MeasureMovedRatio || f.GetValue() <= 0.4 || f.GetBaseline() >= f.GetValue() {
		t.Errorf("failure = %v", f)
	}
	if !strings.Contains(st.GetReason(), "max_moved_ratio failed on 1 group (rollout-lab)") {
		t.Errorf("reason = %q", st.GetReason())
	}
	// The halt lasts: the group goes on rebalancing under the rule's
	// first step, and nothing advances it.
	l.join(t, ctx, "m4")
	if st := l.c.RuleStatus("canary"); !st.GetHalted() || st.GetStep() != 0 {
		t.Errorf("after the halt: %v", st)
	}
}
