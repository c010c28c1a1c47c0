package policy_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/policytest"
)

func TestParseRejectsBadSteps(t *testing.T) {
	head := "version: 1\nrules:\n  - name: a\n    assignor: cooperative-sticky@1\n    rollout:\n"
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"percent and steps", "      percent: 5\n      steps: [{percent: 1, hold: 1h}, {percent: 100}]\n",
			[]string{`test.yaml:6: rule "a": rollout.percent: write percent or steps, not both`}},
		{"empty steps", "      steps: []\n", []string{`rollout.steps: a staged rollout needs steps`}},
		{"gate without steps", "      gate: {min_groups: 1}\n", []string{`rollout.steps: a staged rollout needs steps`}},
		{"step without percent", "      steps: [{hold: 1h}, {percent: 100}]\n", []string{`test.yaml:6: rule "a": rollout.steps[0]: a step needs percent`}},
		{"step percent out of range", "      steps: [{percent: 1, hold: 1h}, {percent: 101}]\n", []string{`rollout.steps[1].percent: 101 is outside 0..100`}},
		{"steps not increasing", "      steps:\n        - {percent: 10, hold: 1h}\n        - {percent: 5, hold: 1h}\n        - {percent: 100}\n",
			[]string{`test.yaml:8: rule "a": rollout.steps[1].percent: 5 is not above the step before (10)`}},
		{"missing hold", "      steps: [{percent: 1}, {percent: 100}]\n", []string{`rollout.steps[0]: a step before the last needs hold`}},
		{"bad hold", "      steps: [{percent: 1, hold: 1day}, {percent: 100}]\n", []string{`rollout.steps[0].hold: "1day" is not a duration`}},
		{"hold too long", "      steps: [{percent: 1, hold: 9000h}, {percent: 100}]\n", []string{`rollout.steps[0].hold: 9000h is not between 0 and 720h`}},
		{"negative hold", "      steps: [{percent: 1, hold: -1s}, {percent: 100}]\n", []string{`rollout.steps[0].hold: -1s is not between`}},
		{"empty gate", "      steps: [{percent: 1, hold: 1h}, {percent: 100}]\n      gate: {on_fail: halt}\n",
			[]string{`test.yaml:7: rule "a": rollout.gate: a gate needs min_groups or a limit`}},
		{"bad gate values", "      steps: [{percent: 1, hold: 1h}, {percent: 100}]\n      gate:\n        min_groups: -1\n        max_moved_ratio: 1.5\n        max_imbalance: -2\n        on_fail: panic\n",
			[]string{`test.yaml:8: rule "a": rollout.gate.min_groups: -1 is negative`,
				`test.yaml:9: rule "a": rollout.gate.max_moved_ratio: 1.5 is not a ratio from 0 to 1`,
				`test.yaml:10: rule "a": rollout.gate.max_imbalance: -2 is negative`,
				`test.yaml:11: rule "a": rollout.gate.on_fail: "panic" is neither "halt" nor "rollback"`}},
		{"unknown gate field", "      steps: [{percent: 1, hold: 1h}, {percent: 100}]\n      gate: {max_moves: 3}\n", []string{`max_moves`, `rollout.gate`}},
		{"unknown step field", "      steps: [{percent: 1, wait: 1h}, {percent: 100}]\n", []string{`wait`, `a rollout step`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := policy.Parse("test.yaml", []byte(head+tt.body))
			if err == nil {
				t.Fatalf("Parse accepted it (rules %v)", p.RuleNames())
			}
			if !errors.Is(err, policy.ErrInvalidPolicy) {
				t.Errorf("error does not wrap ErrInvalidPolicy: %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not contain %q:\n%v", w, err)
				}
			}
		})
	}
}

var stagedYAML = policytest.Canary("include: [orders-always]",
	"steps: [{percent: 0, hold: 30s}, {percent: 50, hold: 1h}, {percent: 100}]",
	"gate: {min_groups: 2, max_moved_ratio: 0.25, max_followups_per_rebalance: 1, on_fail: rollback}")

func TestStagedRules(t *testing.T) {
	p := mustParse(t, stagedYAML)
	sr := p.StagedRules()
	if len(sr) != 1 || sr[0].Rule != "canary" || len(sr[0].Steps) != 3 {
		t.Fatalf("StagedRules = %+v", sr)
	}
	want := []policy.RolloutStep{{BasisPoints: 0, Hold: 30 * time.Second}, {BasisPoints: 5000, Hold: time.Hour}, {BasisPoints: 10000}}
	for i, s := range sr[0].Steps {
		if s != want[i] {
			t.Errorf("step %d = %+v, want %+v", i, s, want[i])
		}
	}
	g := sr[0].Gate
	if g.MinGroups != 2 || *g.MaxMovedRatio != 0.25 || *g.MaxFollowupsPerRebalance != 1 || g.MaxImbalance != nil || g.OnFail != policy.OnFailRollback {
		t.Errorf("gate = %+v", g)
	}
	// A plain percent rule is no staged rule.
	if sr := mustParse(t, "version: 1\nrules:\n  - name: a\n    assignor: cooperative-sticky@1\n    rollout: {percent: 5}\n").StagedRules(); sr != nil {
		t.Errorf("plain rollout is staged: %+v", sr)
	}
}

// A staged rule serves its first step until the Source gets a view, then
// the view's step, switching at SwitchAt; a view of another revision is
// ignored; a rolled-back rule serves no group, its includes neither.
func TestSourceServesSteps(t *testing.T) {
	p := mustParse(t, stagedYAML)
	src := policytest.ServePolicy(t, p)
	// Groups in bucket ranges: below 50% (step 2 takes them), above.
	lowG, highG := orderGroup(t, func(b int) bool { return b < 5000 }), orderGroup(t, func(b int) bool { return b >= 5000 })
	rule := func(g string) string {
		t.Helper()
		sel, err := src.Select(context.Background(), selection.Query{GroupID: g, ProtocolName: "cooperative-sticky"})
		if err != nil {
			t.Fatal(err)
		}
		name, _, _ := strings.Cut(sel.Policy, "/")
		return name
	}
	check := func(when string, wantLow, wantHigh, wantAlways string) {
		t.Helper()
		if got := rule(lowG); got != wantLow {
			t.Errorf("%s: %s runs %s, want %s", when, lowG, got, wantLow)
		}
		if got := rule(highG); got != wantHigh {
			t.Errorf("%s: %s runs %s, want %s", when, highG, got, wantHigh)
		}
		if got := rule("orders-always"); got != wantAlways {
			t.Errorf("%s: orders-always runs %s, want %s", when, got, wantAlways)
		}
	}
	check("no view", "default", "default", "canary")
	src.SetSteps(&policy.StepView{Revision: "other", Rules: map[string]policy.StepState{"canary": {Step: 2, BasisPoints: 10000}}})
	check("view of another revision", "default", "default", "canary")
	src.SetSteps(&policy.StepView{Revision: p.Revision(), Rules: map[string]policy.StepState{"canary": {
		Step: 0, BasisPoints: 0, NextStep: 1, NextBasisPoints: 5000, SwitchAt: time.Now().Add(time.Hour)}}})
	check("switch pending", "default", "default", "canary")
	src.SetSteps(&policy.StepView{Revision: p.Revision(), Rules: map[string]policy.StepState{"canary": {
		Step: 0, BasisPoints: 0, NextStep: 1, NextBasisPoints: 5000, SwitchAt: time.Now().Add(-time.Second)}}})
	check("switched", "canary", "default", "canary")
	e, err := src.Explain(lowG, "cooperative-sticky", selection.Caller{})
	if err != nil || !strings.Contains(e.Reason, "rollout step 2 of 3, percent 50") {
		t.Errorf("explain reason = %q, %v", e.Reason, err)
	}
	src.SetSteps(&policy.StepView{Revision: p.Revision(), Rules: map[string]policy.StepState{"canary": {
		Step: 1, BasisPoints: 5000, NextStep: 1, NextBasisPoints: -1, SwitchAt: time.Now().Add(-time.Second)}}})
	check("rolled back", "default", "default", "default")
	e, err = src.Explain("orders-always", "cooperative-sticky", selection.Caller{})
	if err != nil || len(e.Skipped) == 0 || !strings.Contains(e.Skipped[0].Reason, "rolled back") {
		t.Errorf("explain after rollback = %+v, %v", e, err)
	}
}

// orderGroup returns the first "orders-N" whose bucket satisfies in.
func orderGroup(t *testing.T, in func(int) bool) string {
	t.Helper()
	for i := range 10000 {
		if id := fmt.Sprintf("orders-%d", i); in(policy.Bucket("", id)) {
			return id
		}
	}
	t.Fatal("no such group")
	return ""
}

// A Selection names the step that admitted the group, 1-based, and the
// rollout's agreed start, read at the same instant as the choice: the
// step before a pending switch, the next one after it; 0 for a rule
// without steps (a rolled-back rule's groups go to the next rule).
func TestSelectionNamesTheStep(t *testing.T) {
	p := mustParse(t, stagedYAML)
	src := policytest.ServePolicy(t, p)
	started := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	view := func(st policy.StepState) *policy.StepView {
		return &policy.StepView{Revision: p.Revision(), Started: started, Rules: map[string]policy.StepState{"canary": st}}
	}
	tests := []struct {
		name        string
		view        *policy.StepView
		rule        string
		step        int
		wantStarted bool
	}{
		{"no view: the first step, start unknown", nil, "canary", 1, false},
		{"switch pending", view(policy.StepState{Step: 0, NextStep: 1, NextBasisPoints: 5000, SwitchAt: time.Now().Add(time.Hour)}), "canary", 1, true},
		{"switched", view(policy.StepState{Step: 0, NextStep: 1, NextBasisPoints: 5000, SwitchAt: time.Now().Add(-time.Second)}), "canary", 2, true},
		{"halted at the last step", view(policy.StepState{Step: 2, BasisPoints: 10000}), "canary", 3, true},
		{"complete after the last step's final watch", view(policy.StepState{Step: 2, BasisPoints: 10000, NextStep: 3, NextBasisPoints: 10000,
			SwitchAt: time.Now().Add(-time.Second)}), "canary", 3, true},
		{"rolled back", view(policy.StepState{Step: 1, BasisPoints: 5000, NextStep: 1, NextBasisPoints: -1, SwitchAt: time.Now().Add(-time.Second)}), "default", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src.SetSteps(tt.view)
			sel, err := src.Select(context.Background(), selection.Query{GroupID: "orders-always", ProtocolName: "cooperative-sticky"})
			if err != nil {
				t.Fatal(err)
			}
			name, _, _ := strings.Cut(sel.Policy, "/")
			if name != tt.rule || sel.RolloutStep != tt.step || sel.RolloutStarted.Equal(started) != tt.wantStarted {
				t.Errorf("rule %s step %d started %v; want %s, %d, started known %t", name, sel.RolloutStep, sel.RolloutStarted, tt.rule, tt.step, tt.wantStarted)
			}
		})
	}
	// Policy.Select, without a view, serves and names the first step.
	sel, err := p.Select(selection.Query{GroupID: "orders-always", ProtocolName: "cooperative-sticky"})
	if err != nil || sel.RolloutStep != 1 || !sel.RolloutStarted.IsZero() {
		t.Errorf("Policy.Select: step %d started %v, %v", sel.RolloutStep, sel.RolloutStarted, err)
	}
}
