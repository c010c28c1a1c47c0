package rollout_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/rollout"
	"github.com/assignd/assignd/testbed/contains"
	"github.com/assignd/assignd/testbed/policytest"
)

var timedYAML = policytest.Canary("steps: [{percent: 10, hold: 1m}, {percent: 50, hold: 1m}, {percent: 100}]")

// Three replicas reading one log at different paces serve the same step
// at every instant, through every step; a replica restarting mid-rollout
// reads the log back and serves the same step too.
func TestReplicasAgreeOnTheStep(t *testing.T) {
	p := mustParse(t, timedYAML)
	clk := newClock()
	l := &sharedLog{}
	rs := []*replica{newReplica(t, "a", p, nil, l, clk), newReplica(t, "b", p, nil, l, clk), newReplica(t, "c", p, nil, l, clk)}
	agree := func(when string) (int, int) {
		t.Helper()
		now := clk.Now()
		s0, bp0 := rs[0].serving("canary", now)
		for i, r := range rs[1:] {
			if s, bp := r.serving("canary", now); s != s0 || bp != bp0 {
				t.Fatalf("%s: replica %d serves step %d (%d bp), replica 0 step %d (%d bp)", when, i+1, s, bp, s0, bp0)
			}
		}
		return s0, bp0
	}
	// Each second: every replica ticks; replica 0 reads at once, 1 a
	// second later, 2 three seconds later (within the switch delay).
	var steps []int
	for sec := 0; sec < 200; sec++ {
		for _, r := range rs {
			r.c.Tick()
		}
		rs[0].catchUp(l)
		if sec%2 == 0 {
			rs[1].catchUp(l)
		}
		if sec%4 == 0 {
			rs[2].catchUp(l)
		}
		s, _ := agree(fmt.Sprintf("second %d", sec))
		if len(steps) == 0 || steps[len(steps)-1] != s {
			steps = append(steps, s)
		}
		if sec == 90 {
			// Replica 2 restarts: a new run reads the whole log.
			rs[2] = newReplica(t, "c", p, nil, l, clk)
			rs[2].catchUp(l)
			agree("after the restart")
		}
		clk.Add(time.Second)
	}
	if fmt.Sprint(steps) != "[0 1 2]" {
		t.Errorf("steps served = %v, want [0 1 2]", steps)
	}
	// The first SERVING and one ADVANCE per step won; the others were
	// ignored.
	st := rs[0].c.Status().GetRules()[0]
	if st.GetStep() != 2 || st.GetPercent() != 100 || st.GetHalted() || !st.GetAgreed() {
		t.Errorf("status = %v", st)
	}
	if !rs[2].c.Agreed(p.Revision()) {
		t.Error("the restarted replica never agreed")
	}
}

// Before any replica has read the agreed start, each serves step 0, and
// no verdict is made.
func TestNoVerdictBeforeAgreement(t *testing.T) {
	p := mustParse(t, timedYAML)
	clk := newClock()
	l := &sharedLog{}
	r := newReplica(t, "a", p, nil, l, clk)
	for range 300 {
		r.c.Tick()
		clk.Add(time.Second)
	}
	if s, bp := r.serving("canary", clk.Now()); s != 0 || bp != 1000 {
		t.Errorf("serves step %d (%d bp) before agreement", s, bp)
	}
	for _, ev := range l.recs {
		if ev.GetKind() != assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_SERVING {
			t.Errorf("made %v before agreement", ev.GetKind())
		}
	}
	if l.len() < 2 {
		t.Errorf("SERVING published %d times in 300s; want it retried", l.len())
	}
}

const gatedYAML = `version: 1
bindings:
  - name: orders
    group_prefixes: [orders-]
    callers: [{common_name: leader}]
rules:
  - name: canary
    match: {group_prefixes: [orders-, rogue-]}
    assignor: cooperative-sticky@1
    params: {max_moves_per_rebalance: 4}
    shadow: {assignor: cooperative-sticky@1}
    rollout:
      steps: [{percent: 50, hold: 1m}, {percent: 100}]
      gate: {min_groups: 2, max_moved_ratio: 0.25, max_followups_per_rebalance: 1}
`

// run ticks a lone replica (a LocalLog-like shared log read at once) for
// secs seconds.
func run(r *replica, l *sharedLog, clk *clock, secs int) {
	for range secs {
		r.c.Tick()
		r.catchUp(l)
		clk.Add(time.Second)
	}
}

func TestGate(t *testing.T) {
	p := mustParse(t, gatedYAML)
	rev := p.Revision()
	// lead is the trusted leader's decision for group, of 10 partitions
	// under the canary rule, sec seconds after start.
	lead := func(start time.Time, group string, sec, gen, moved int32) decision {
		return decision{group: group, rule: "canary", revision: rev, at: start.Add(time.Duration(sec) * time.Second), gen: gen, moved: moved, parts: 10, caller: "leader"}
	}
	tests := []struct {
		name      string
		decisions func(start time.Time) []decision
		halted    bool
		step      int32
		reason    []string
	}{
		{"too few groups waits", func(s time.Time) []decision {
			return []decision{lead(s, "orders-1", 5, 1, 1)}
		}, false, 0, []string{"waiting: 1 of 2 trusted groups"}},
		{"enough good groups advance", func(s time.Time) []decision {
			return []decision{
				lead(s, "orders-1", 5, 1, 1),
				lead(s, "orders-2", 6, 1, 2),
			}
		}, false, 1, nil},
		{"moved ratio over the limit halts", func(s time.Time) []decision {
			return []decision{
				lead(s, "orders-1", 5, 1, 1),
				lead(s, "orders-2", 6, 1, 9),
			}
		}, true, 0, []string{"max_moved_ratio failed on 1 group (orders-2)"}},
		// A cooperative round withholds what it moves: 2 moved of a
		// 10-partition group is 20%, under the limit, though only 7 are
		// assigned this round (2 of 7 would be over it).
		{"a moved ratio is over the group's partitions, withheld ones too", func(s time.Time) []decision {
			return []decision{
				{group: "orders-1", rule: "canary", revision: rev, at: s.Add(5 * time.Second), gen: 1, moved: 2, parts: 7, withheld: 3, caller: "leader"},
				lead(s, "orders-2", 6, 1, 1),
			}
		}, false, 1, nil},
		{"as bad as the shadow is no failure", func(s time.Time) []decision {
			return []decision{
				lead(s, "orders-1", 5, 1, 1),
				lead(s, "orders-2", 6, 1, 9),
				{group: "orders-2", rule: "canary", revision: rev, at: s.Add(6 * time.Second), gen: 1, moved: 9, parts: 10, shadow: true},
			}
		}, false, 1, nil},
		{"as bad as before the switch is no failure", func(s time.Time) []decision {
			return []decision{
				{group: "orders-2", rule: "default", revision: rev, at: s.Add(-time.Minute), gen: 1, moved: 10, parts: 10, caller: "leader"},
				lead(s, "orders-1", 5, 1, 1),
				lead(s, "orders-2", 6, 2, 9),
			}
		}, false, 1, nil},
		{"follow-up chains halt", func(s time.Time) []decision {
			return []decision{
				lead(s, "orders-1", 5, 1, 1),
				{group: "orders-2", rule: "canary", revision: rev, at: s.Add(6 * time.Second), gen: 1, parts: 10, followup: true, caller: "leader"},
				{group: "orders-2", rule: "canary", revision: rev, at: s.Add(7 * time.Second), gen: 2, parts: 10, followup: true, caller: "leader"},
			}
		}, true, 0, []string{"max_followups_per_rebalance failed on 1 group (orders-2)"}},
		// A rogue client cannot halt the rollout: its decisions, for a
		// group no binding covers or for a bound group under another
		// identity, are not counted.
		{"rogue decisions do not halt", func(s time.Time) []decision {
			return []decision{
				lead(s, "orders-1", 5, 1, 1),
				lead(s, "orders-2", 6, 1, 1),
				{group: "rogue-1", rule: "canary", revision: rev, at: s.Add(7 * time.Second), gen: 1, moved: 10, parts: 10, caller: "mallory"},
				{group: "rogue-2", rule: "canary", revision: rev, at: s.Add(7 * time.Second), gen: 1, moved: 10, parts: 10},
				{group: "orders-3", rule: "canary", revision: rev, at: s.Add(8 * time.Second), gen: 1, moved: 10, parts: 10, caller: "mallory"},
			}
		}, false, 1, nil},
		// ... nor advance it: untrusted groups do not count toward
		// min_groups.
		{"rogue decisions do not advance", func(s time.Time) []decision {
			var ds []decision
			for i := range 10 {
				ds = append(ds, decision{group: fmt.Sprintf("rogue-%d", i), rule: "canary", revision: rev, at: s.Add(5 * time.Second), gen: 1, moved: 1, parts: 10, caller: "mallory"})
			}
			return append(ds, decision{group: "orders-9", rule: "canary", revision: rev, at: s.Add(5 * time.Second), gen: 1, moved: 1, parts: 10, caller: "mallory"})
		}, false, 0, []string{"waiting: 0 of 2 trusted groups (11 groups only untrusted callers requested, not counted)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk, h := clockedHistory(t)
			l := &sharedLog{}
			r := newReplica(t, "a", p, h, l, clk)
			start := clk.Now()
			for _, d := range tt.decisions(start) {
				d.record(h)
			}
			run(r, l, clk, 90)
			st := r.c.Status().GetRules()[0]
			if st.GetHalted() != tt.halted || st.GetStep() != tt.step {
				t.Errorf("halted %t step %d, want %t %d; status %v", st.GetHalted(), st.GetStep(), tt.halted, tt.step, st)
			}
			text := st.GetReason() + " | " + st.GetLastEvaluation()
			contains.All(t, "the status", text, tt.reason...)
			if tt.halted && len(st.GetFailures()) == 0 {
				t.Errorf("halted without failures: %v", st)
			}
			if tt.halted {
				// A halt stays: no verdict follows.
				run(r, l, clk, 120)
				if st2 := r.c.Status().GetRules()[0]; !st2.GetHalted() || st2.GetStep() != tt.step {
					t.Errorf("the halt did not last: %v", st2)
				}
			}
		})
	}
}

// on_fail: rollback makes the rule serve nobody once the verdict is in
// effect; the first verdict for a step wins over a later one.
func TestRollbackAndFirstVerdictWins(t *testing.T) {
	p := mustParse(t, strings.Replace(gatedYAML, "max_followups_per_rebalance: 1}", "max_followups_per_rebalance: 1, on_fail: rollback}", 1))
	rev := p.Revision()
	m := rollout.NewMachine()
	at := func(s int) *assigndv1.RolloutEvent {
		return &assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_SERVING, Revision: rev, EffectiveAt: tsAt(s)}
	}
	if !m.Apply(at(0)) || m.Apply(at(10)) {
		t.Fatal("the first SERVING must win, the second change nothing")
	}
	rb := &assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ROLLBACK, Revision: rev, Rule: "canary", Step: 0, EffectiveAt: tsAt(70)}
	adv := &assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ADVANCE, Revision: rev, Rule: "canary", Step: 0, EffectiveAt: tsAt(71)}
	if !m.Apply(rb) || m.Apply(adv) {
		t.Fatal("the first verdict must win")
	}
	st, _ := m.Rule(rev, "canary")
	if !st.RolledBack || st.Step != 0 {
		t.Errorf("state = %+v", st)
	}
	// A STATE record of an earlier state changes nothing; a restarted
	// machine reading only STATE records reaches the same state.
	recs := m.StateRecords(rev, []string{"canary"}, tsAt(100).AsTime())
	m2 := rollout.NewMachine()
	m2.Apply(&assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_STATE, Revision: rev, Rule: "canary", Step: 0, EffectiveAt: tsAt(0), StartedAt: tsAt(0)})
	for _, r := range recs {
		m2.Apply(r)
	}
	st2, ok := m2.Rule(rev, "canary")
	if !ok || !st2.RolledBack || st2.Step != 0 || !st2.Since.Equal(st.Since) {
		t.Errorf("from STATE records: %+v, want %+v", st2, st)
	}
}

// Resuming after a halt is a file change: a new revision is a new
// rollout from its first step, while the same bytes again are the same
// revision, with its halt.
func TestNewRevisionIsANewRollout(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "policy.yaml")
	write := func(s string) {
		t.Helper()
		if err := os.WriteFile(path+".tmp", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			t.Fatal(err)
		}
	}
	write(timedYAML)
	ctx := context.Background()
	src, err := policy.Watch(ctx, path, policy.WithDebounce(time.Hour), policy.WithResync(0), policy.WithMeterProvider(noop.NewMeterProvider()),
		policy.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	clk := newClock()
	l := &sharedLog{}
	c, err := rollout.New(src, nil, l, rollout.WithClock(clk.Now), rollout.WithMeterProvider(noop.NewMeterProvider()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := &replica{c: c, src: src}
	first := src.Policy().Revision()
	run(r, l, clk, 5)
	// Another replica's gate failed first.
	l.Publish(&assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_HALT, Revision: first, Rule: "canary",
		Step: 0, EffectiveAt: timestamppb.New(clk.Now()), Reason: "gate failed: max_moved_ratio failed on 1 group (orders-2)"})
	run(r, l, clk, 120)
	if st := c.RuleStatus("canary"); !st.GetHalted() || st.GetStep() != 0 {
		t.Fatalf("not halted: %v", st)
	}

	write(timedYAML + "# resumed: the assignor's params fixed\n")
	if err := src.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	run(r, l, clk, 70) // the hold, then the switch delay
	st := c.RuleStatus("canary")
	if st.GetRevision() == first || st.GetHalted() || st.GetStep() != 1 {
		t.Errorf("the new revision is not a new rollout: %v", st)
	}

	write(timedYAML)
	if err := src.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	run(r, l, clk, 2)
	if st := c.RuleStatus("canary"); st.GetRevision() != first || !st.GetHalted() {
		t.Errorf("the first revision's halt is gone: %v", st)
	}
	if s, bp := r.serving("canary", clk.Now()); s != 0 || bp != 1000 {
		t.Errorf("the halted revision serves step %d (%d bp)", s, bp)
	}
}
