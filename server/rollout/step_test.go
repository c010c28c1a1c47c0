package rollout_test

import (
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/rollout"
)

const stepYAML = `version: 1
rules:
  - name: canary
    match: {group_prefixes: [orders-]}
    assignor: cooperative-sticky@1
    rollout:
      steps: [{percent: 10, hold: 1m}, {percent: 50, hold: 1m}, {percent: 100}]
      gate: {min_groups: 1, max_moved_ratio: 0.25}
`

// A gate counts exactly the decisions of its step when they record it
// (Decision.rollout_step), whatever their time, and falls back on their
// time for decisions that do not (replicas predating the field).
func TestGateCountsTheStepsDecisions(t *testing.T) {
	p := mustParse(t, stepYAML)
	gate := p.StagedRules()[0].Gate
	started := newClock().Now()
	since := started.Add(65 * time.Second) // step 1 began
	step := rollout.Step{Index: 1, Started: started, Since: since}
	at := func(s int) *timestamppb.Timestamp { return timestamppb.New(since.Add(time.Duration(s) * time.Second)) }
	tests := []struct {
		name           string
		d              *assigndv1.Decision
		counts, failed bool
	}{
		{"tagged with the step", &assigndv1.Decision{Time: at(3), RolloutStep: 2, RolloutStarted: timestamppb.New(started)}, true, true},
		// Admitted by step 0 just before the switch; the engine finished
		// after it.
		{"tagged with the step before, made after the switch", &assigndv1.Decision{Time: at(1), RolloutStep: 1, RolloutStarted: timestamppb.New(started)}, false, false},
		{"tagged with the step, made before its start on a clock behind", &assigndv1.Decision{Time: at(-2), RolloutStep: 2, RolloutStarted: timestamppb.New(started)}, true, true},
		{"tagged with a later step", &assigndv1.Decision{Time: at(90), RolloutStep: 3, RolloutStarted: timestamppb.New(started)}, false, false},
		{"tagged with the step of another rollout", &assigndv1.Decision{Time: at(3), RolloutStep: 2, RolloutStarted: timestamppb.New(started.Add(-time.Hour))}, false, false},
		{"tagged before the replica read the start", &assigndv1.Decision{Time: at(3), RolloutStep: 2}, true, true},
		{"untagged, made after the step began", &assigndv1.Decision{Time: at(1)}, true, true},
		{"untagged, made at the instant the step began", &assigndv1.Decision{Time: at(0)}, true, true},
		{"untagged, made before the step began", &assigndv1.Decision{Time: at(-1)}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.d
			d.GroupId, d.GenerationId, d.PolicyRule, d.PolicyRevision = "orders-1", 7, "canary", p.Revision()
			d.Partitions, d.Moved = 10, 9 // over max_moved_ratio
			if got := step.Served(d); got != tt.counts {
				t.Errorf("Served = %t, want %t", got, tt.counts)
			}
			v := rollout.Evaluate(p, "canary", gate, step, []history.RuleGroup{{ID: "orders-1", Decisions: []*assigndv1.Decision{d}}})
			if n := map[bool]int{true: 1}[tt.counts]; v.Groups != n || v.Failed() != tt.failed {
				t.Errorf("verdict: %d groups, failed %t; want %d, %t (%s)", v.Groups, v.Failed(), n, tt.failed, v.Summary(gate.MinGroups))
			}
		})
	}
}

// A decision served just before a step switch does not count in the new
// step: a replica's gate reads it from the history (any replica's) and
// neither halts on it nor counts it toward min_groups, while the same
// decision from a replica predating the field is judged by its time.
func TestDecisionBeforeTheSwitchStaysInItsStep(t *testing.T) {
	p := mustParse(t, stepYAML)
	for _, tagged := range []bool{true, false} {
		clk, h := clockedHistory(t)
		l := &sharedLog{}
		r := newReplica(t, "a", p, h, l, clk)
		good := decision{group: "orders-1", rule: "canary", revision: p.Revision(), at: clk.Now().Add(5 * time.Second), gen: 1, moved: 1, parts: 10}
		good.record(h)
		run(r, l, clk, 62) // the hold passed; step 0 advanced, in effect 5s later
		v := r.src.Steps().Rules["canary"]
		if v.SwitchAt.IsZero() || !clk.Now().Before(v.SwitchAt) {
			t.Fatalf("no switch pending: %+v at %v", v, clk.Now())
		}
		// Step 0 admits orders-2 just before the switch (the server tags
		// its decision with step 1, 1-based: see the policy's tests); the
		// decision, moving 90% of its partitions, is made just after it.
		bad := &assigndv1.Decision{Time: timestamppb.New(v.SwitchAt.Add(time.Second)), GroupId: "orders-2", GenerationId: 1, PolicyRule: "canary",
			PolicyRevision: p.Revision(), Partitions: 10, Moved: 9}
		if tagged {
			bad.RolloutStep, bad.RolloutStarted = 1, r.c.RuleStatus("canary").GetStartedAt()
		}
		h.Record(bad)
		run(r, l, clk, 30)
		st := r.c.RuleStatus("canary")
		if tagged {
			if st.GetHalted() || st.GetStep() != 1 || st.GetLastEvaluation() != "waiting: 0 of 1 trusted groups" {
				t.Errorf("tagged: the decision of step 0 counted in step 1: %v", st)
			}
		} else if !st.GetHalted() || st.GetStep() != 1 {
			t.Errorf("untagged: the decision made in step 1 did not count: %v", st)
		}
	}
}
