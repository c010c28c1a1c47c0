package rollout_test

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/rollout"
	"github.com/assignd/assignd/testbed/metrictest"
)

// Records the tests write by hand.
func serving(rev string, s int) *assigndv1.RolloutEvent {
	return &assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_SERVING, Revision: rev, EffectiveAt: tsAt(s)}
}

func verdict(kind assigndv1.RolloutEventKind, rev string, step int32, s int) *assigndv1.RolloutEvent {
	return &assigndv1.RolloutEvent{Kind: kind, Revision: rev, Rule: "canary", Step: step, EffectiveAt: tsAt(s)}
}

func advance(rev string, step int32, s int) *assigndv1.RolloutEvent {
	return verdict(assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ADVANCE, rev, step, s)
}

func halt(rev string, step int32, s int) *assigndv1.RolloutEvent {
	return verdict(assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_HALT, rev, step, s)
}

func stateRec(rev string, step int32, since, started int) *assigndv1.RolloutEvent {
	return &assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_STATE, Revision: rev, Rule: "canary", Step: step,
		EffectiveAt: tsAt(since), StartedAt: tsAt(started)}
}

// sec is the test clock's time s seconds after its start.
func sec(s int) time.Time { return tsAt(s).AsTime() }

// Clocks differ between replicas: a record's effective_at may be in the
// past when it is read, or in the future of a reader whose clock is
// behind. Whatever the order and the readers' clocks, the Machine reaches
// the same state, and the step before serves until the switch.
func TestClockSkew(t *testing.T) {
	const rev = "r1"
	tests := []struct {
		name string
		recs []*assigndv1.RolloutEvent
		// want: the agreed step, the step served before since, since.
		step, prev, since int
	}{
		// Read long after its effective_at (a reader whose clock is
		// ahead, or a slow log): it is in effect at once, and the next
		// hold counts from effective_at, the same on every replica.
		{"verdict read after its effective_at", []*assigndv1.RolloutEvent{serving(rev, 0), advance(rev, 0, 65)}, 1, 0, 65},
		// A restarted replica reading a re-published STATE before its
		// since (its clock behind the publisher's) serves the step before
		// until then, as the replicas that read the ADVANCE do.
		{"STATE read before its since", []*assigndv1.RolloutEvent{stateRec(rev, 2, 130, 0)}, 2, 1, 130},
		{"STATE of the first step", []*assigndv1.RolloutEvent{stateRec(rev, 0, 0, 0)}, 0, 0, 0},
		// A verdict from a replica whose clock is behind says it takes
		// effect before the step it leaves began: it takes effect when
		// that step began, so the next hold never counts from before.
		{"verdict effective before its step began", []*assigndv1.RolloutEvent{serving(rev, 0), advance(rev, 0, 65), advance(rev, 1, 50)}, 2, 1, 65},
		{"halt effective before its step began", []*assigndv1.RolloutEvent{serving(rev, 0), advance(rev, 0, 65), halt(rev, 1, 50)}, 1, 1, 65},
		// A SERVING from a clock ahead starts the rollout in the future:
		// no step is served early.
		{"start in the future", []*assigndv1.RolloutEvent{serving(rev, 300)}, 0, 0, 300},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := rollout.NewMachine()
			for _, ev := range tt.recs {
				m.Apply(ev)
			}
			st, ok := m.Rule(rev, "canary")
			if !ok || st.Step != tt.step || st.Prev != tt.prev || !st.Since.Equal(sec(tt.since)) {
				t.Errorf("state %+v (started %t); want step %d, before it %d, since +%ds", st, ok, tt.step, tt.prev, tt.since)
			}
		})
	}
}

// A restarted replica whose clock is behind reads a re-published STATE
// before its since: it serves the step before until then, like the
// replica that read the ADVANCE, and both switch at the same instant.
func TestStateReadEarlySwitchesWithTheOthers(t *testing.T) {
	p := mustParse(t, timedYAML)
	rev := p.Revision()
	clk := newClock()
	l := &sharedLog{}
	a, b := newReplica(t, "a", p, nil, l, clk), newReplica(t, "b", p, nil, l, clk)
	a.c.Apply(serving(rev, 0))
	a.c.Apply(advance(rev, 0, 65))
	b.c.Apply(stateRec(rev, 1, 65, 0)) // b read only the STATE, at +60
	for _, at := range []int{60, 64, 65, 66} {
		sa, bpa := a.serving("canary", sec(at))
		sb, bpb := b.serving("canary", sec(at))
		if sa != sb || bpa != bpb {
			t.Errorf("+%ds: a serves step %d (%d bp), b step %d (%d bp)", at, sa, bpa, sb, bpb)
		}
	}
}

// swapSource is a Source whose policy revision a test replaces, as a
// reload does.
type swapSource struct {
	p     atomic.Pointer[policy.Policy]
	steps atomic.Pointer[policy.StepView]
}

func (s *swapSource) Policy() *policy.Policy      { return s.p.Load() }
func (s *swapSource) SetSteps(v *policy.StepView) { s.steps.Store(v) }
func (s *swapSource) step(rule string, now time.Time) int {
	v := s.steps.Load()
	if v == nil || v.Revision != s.p.Load().Revision() {
		return 0
	}
	st, _ := v.Rules[rule].At(now)
	return st
}

// A reload in the middle of a hold: the new revision is a new rollout,
// from its own start; verdicts for the old revision arriving late (from a
// replica still on the old file) change only the old revision; going back
// to the old revision resumes it where the log left it.
func TestRevisionSwitchMidHold(t *testing.T) {
	x := mustParse(t, timedYAML)
	y := mustParse(t, timedYAML+"# y\n")
	clk := newClock()
	l := &sharedLog{}
	src := &swapSource{}
	src.p.Store(x)
	c, err := rollout.New(src, nil, l, rollout.WithClock(clk.Now), rollout.WithSwitchDelay(5*time.Second),
		rollout.WithMeterProvider(noop.NewMeterProvider()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := &replica{c: c}
	run(r, l, clk, 30) // x: step 0, half its hold
	src.p.Store(y)
	run(r, l, clk, 35) // +65: x's hold would have passed; y's has not
	if st := c.RuleStatus("canary"); st.GetRevision() != y.Revision() || st.GetStep() != 0 || !st.GetStartedAt().AsTime().Equal(sec(30)) {
		t.Errorf("y at +65: %v", st)
	}
	// A replica still on x advances x; y is not moved by it.
	l.Publish(advance(x.Revision(), 0, 66))
	run(r, l, clk, 10) // +75
	if s := src.step("canary", clk.Now()); s != 0 {
		t.Errorf("y serves step %d after x's verdict", s)
	}
	if c.RuleStatus("canary").GetStep() != 0 {
		t.Errorf("y's status moved with x's verdict: %v", c.RuleStatus("canary"))
	}
	run(r, l, clk, 25) // +100: y's hold (from +30) passed, the switch delay too
	if s := src.step("canary", clk.Now()); s != 1 {
		t.Errorf("y serves step %d at +100, want 1", s)
	}
	// Back to x: its state is the log's, step 1 since +66.
	src.p.Store(x)
	run(r, l, clk, 1)
	st := c.RuleStatus("canary")
	if st.GetRevision() != x.Revision() || st.GetStep() != 1 || !st.GetSince().AsTime().Equal(sec(66)) {
		t.Errorf("back on x: %v", st)
	}
}

// The Machine forgets the revision least recently in the log, not the
// one first seen: records of many old revisions (replicas on old files,
// late verdicts) cannot push out the serving revision, which is
// re-published every period. A late verdict for a forgotten revision
// does not bring it back.
func TestServingRevisionOutlivesOldOnes(t *testing.T) {
	m := rollout.NewMachine()
	m.Apply(serving("serving", 0))
	m.Apply(halt("serving", 0, 10))
	for i := range rollout.MaxRevisions - 1 {
		m.Apply(serving(fmt.Sprintf("old-%d", i), 20))
	}
	// The hourly STATE of the serving revision, then more old records.
	for _, ev := range m.StateRecords("serving", []string{"canary"}, sec(3600)) {
		m.Apply(ev)
	}
	for i := range 5 {
		m.Apply(serving(fmt.Sprintf("older-%d", i), 30))
	}
	if st, ok := m.Rule("serving", "canary"); !ok || !st.Halted {
		t.Errorf("the serving revision's halt was forgotten: %+v, %t", st, ok)
	}
	if _, ok := m.Started("old-0"); ok {
		t.Error("the least recently used revision is still remembered")
	}
	if m.Apply(advance("old-0", 0, 40)) {
		t.Error("a late verdict for a forgotten revision changed the state")
	}
	if _, ok := m.Started("old-0"); ok {
		t.Error("a late verdict brought a forgotten revision back")
	}
}

// What a Machine keeps is bounded, whatever the log holds: rules per
// revision, revisions, and each record's reason and failures.
func TestMachineMemoryIsBounded(t *testing.T) {
	m := rollout.NewMachine()
	m.Apply(serving("r", 0))
	for i := range rollout.MaxRules {
		ev := advance("r", 0, 10)
		ev.Rule = fmt.Sprintf("rule-%d", i)
		if !m.Apply(ev) {
			t.Fatalf("rule %d: the verdict was ignored", i)
		}
	}
	extra := advance("r", 0, 10)
	extra.Rule = "one-too-many"
	if m.Apply(extra) {
		t.Error("a rule over the bound was kept")
	}
	if st, _ := m.Rule("r", "one-too-many"); st.Step != 0 {
		t.Errorf("the rule over the bound is at step %d", st.Step)
	}
	for i := range 3 * rollout.MaxRevisions {
		m.Apply(serving(fmt.Sprintf("rev-%d", i), 0))
	}
	remembered := 0
	for i := range 3 * rollout.MaxRevisions {
		if _, ok := m.Started(fmt.Sprintf("rev-%d", i)); ok {
			remembered++
		}
	}
	if remembered != rollout.MaxRevisions {
		t.Errorf("%d revisions remembered, want %d", remembered, rollout.MaxRevisions)
	}
	big := halt("rev-95", 0, 10)
	big.Reason = strings.Repeat("é", 10*rollout.MaxReason)
	for i := range 1000 {
		big.Failures = append(big.Failures, &assigndv1.RolloutFailure{GroupId: fmt.Sprint(i), Measure: rollout.MeasureMovedRatio})
	}
	if !m.Apply(big) {
		t.Fatal("the halt was ignored")
	}
	st, _ := m.Rule("rev-95", "canary")
	if !st.Halted || len(st.Reason) > rollout.MaxReason || !strings.HasPrefix(big.Reason, st.Reason) || len(st.Failures) != rollout.MaxFailures {
		t.Errorf("halted %t, reason of %d bytes, %d failures", st.Halted, len(st.Reason), len(st.Failures))
	}
	// Bad STATE records are ignored: a negative step (it would index the
	// steps), no effective_at.
	bad := stateRec("rev-95", -3, 10, 0)
	bad.Rule = "other"
	noAt := stateRec("rev-95", 2, 10, 0)
	noAt.Rule, noAt.EffectiveAt = "other", nil
	if m.Apply(bad) || m.Apply(noAt) {
		t.Error("a bad STATE record changed the state")
	}
}

// retainedLog is a shared log whose records older than the retention are
// deleted, as the history topic's are.
type retainedLog struct {
	sharedLog
}

// since returns the index of the first record kept with a retention that
// keeps what was published at or after cut.
func (l *retainedLog) since(cut time.Time) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, ev := range l.recs {
		if !ev.GetTime().AsTime().Before(cut) {
			return i
		}
	}
	return len(l.recs)
}

// After the topic's retention, a halt of a revision no longer serving is
// still in the log (re-published with the serving revision's state), so
// that a replica starting then and going back to that revision's bytes
// serves its halt, not a new rollout.
func TestHaltOutlivesRetentionWhileAnotherRevisionServes(t *testing.T) {
	x := mustParse(t, timedYAML)
	y := mustParse(t, timedYAML+"# y\n")
	for _, ySteps := range []bool{true, false} {
		if !ySteps {
			y = mustParse(t, "version: 1\nrules: []\n")
		}
		clk := newClock()
		l := &retainedLog{}
		src := &swapSource{}
		src.p.Store(x)
		c, err := rollout.New(src, nil, l, rollout.WithClock(clk.Now), rollout.WithRepublish(time.Hour),
			rollout.WithMeterProvider(noop.NewMeterProvider()))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		r := &replica{c: c}
		run(r, &l.sharedLog, clk, 5)
		l.Publish(halt(x.Revision(), 0, 6))
		run(r, &l.sharedLog, clk, 5)
		src.p.Store(y)
		// Two days on y, ticking every minute.
		for range 48 * 60 {
			r.c.Tick()
			r.catchUp(&l.sharedLog)
			clk.Add(time.Minute)
		}
		// A replica starts now and reads what the retention (24h) kept.
		src2 := &swapSource{}
		src2.p.Store(x)
		c2, err := rollout.New(src2, nil, l, rollout.WithClock(clk.Now), rollout.WithMeterProvider(noop.NewMeterProvider()))
		if err != nil {
			t.Fatal(err)
		}
		defer c2.Close()
		r2 := &replica{c: c2, read: l.since(clk.Now().Add(-24 * time.Hour))}
		r2.catchUp(&l.sharedLog)
		run(r2, &l.sharedLog, clk, 2)
		if st := c2.RuleStatus("canary"); !st.GetHalted() {
			t.Errorf("y with steps %t: back on x after the retention, the halt is gone: %v", ySteps, st)
		}
	}
}

// partLog is the shared log as one replica reaches it: while down, what
// it publishes is lost and it reads nothing.
type partLog struct {
	l  *sharedLog
	mu sync.Mutex
	up bool
}

func (p *partLog) Publish(ev *assigndv1.RolloutEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.up {
		p.l.Publish(ev)
	}
}

func (p *partLog) setUp(up bool) {
	p.mu.Lock()
	p.up = up
	p.mu.Unlock()
}

// A replica that loses the history topic keeps serving the last step it
// read agreed, through holds that pass and verdicts of its own that
// never reach the log; it never advances alone. Back on the topic, it
// catches up with what the others agreed.
func TestReplicaWithoutTheTopicServesTheLastAgreedStep(t *testing.T) {
	p := mustParse(t, timedYAML)
	clk := newClock()
	l := &sharedLog{}
	a := newReplica(t, "a", p, nil, l, clk)
	pl := &partLog{l: l, up: true}
	var published atomic.Int64
	cutLog := rollout.LogFunc(func(ev *assigndv1.RolloutEvent) { published.Add(1); pl.Publish(ev) })
	src := newSource(t, p)
	c, err := rollout.New(src, nil, cutLog, rollout.WithClock(clk.Now), rollout.WithReplica("b"), rollout.WithSwitchDelay(5*time.Second),
		rollout.WithRetry(5*time.Second), rollout.WithMeterProvider(noop.NewMeterProvider()))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := &replica{c: c, src: src}
	tick := func(secs int, bUp bool) {
		for range secs {
			a.c.Tick()
			b.c.Tick()
			a.catchUp(l)
			if bUp {
				b.catchUp(l)
			}
			clk.Add(time.Second)
		}
	}
	tick(70, true) // both at step 1
	if s, _ := b.serving("canary", clk.Now()); s != 1 {
		t.Fatalf("b serves step %d before the cut, want 1", s)
	}
	pl.setUp(false)
	before := published.Load()
	tick(120, false) // a advances to step 2; b's hold passes too
	if s, _ := a.serving("canary", clk.Now()); s != 2 {
		t.Fatalf("a serves step %d, want 2", s)
	}
	if s, _ := b.serving("canary", clk.Now()); s != 1 {
		t.Errorf("b, cut off from the topic, serves step %d; want the last agreed, 1", s)
	}
	if published.Load() == before {
		t.Error("b made no verdict while cut off: the test did not exercise it")
	}
	if st := b.c.RuleStatus("canary"); st.GetStep() != 1 || st.GetHalted() {
		t.Errorf("b's status while cut off: %v", st)
	}
	pl.setUp(true)
	tick(1, true)
	if s, _ := b.serving("canary", clk.Now()); s != 2 {
		t.Errorf("b serves step %d once back, want 2", s)
	}
}

// The halts counter counts a verdict read live, once per replica; a
// replica restarting reads the log back without counting its old halts
// again (an alert on the counter's increase would fire at every restart),
// and a record's unknown measure is no label value.
func TestHaltsCountedLiveOnly(t *testing.T) {
	p := mustParse(t, timedYAML)
	rev := p.Revision()
	clk := newClock()
	l := &sharedLog{}
	counted := func(reader *sdkmetric.ManualReader) map[string]int64 {
		t.Helper()
		return metrictest.Sums(t, reader, "assignd.policy.rollout.halts", "reason")
	}
	newMetered := func(name string) (*replica, *sdkmetric.ManualReader) {
		reader := sdkmetric.NewManualReader()
		return newReplica(t, name, p, nil, l, clk, rollout.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))), reader
	}
	a, ra := newMetered("a")
	run(a, l, clk, 5)
	h := halt(rev, 0, 10)
	h.Failures = []*assigndv1.RolloutFailure{{GroupId: "orders-1", Measure: "made-up-measure"}}
	l.Publish(h)
	run(a, l, clk, 5)
	if got := counted(ra); got["gate"] != 1 || len(got) != 1 {
		t.Errorf("live halt counted %v, want gate: 1", got)
	}
	b, rb := newMetered("a") // a restarts
	run(b, l, clk, 5)
	if st := b.c.RuleStatus("canary"); !st.GetHalted() {
		t.Fatalf("the restarted replica did not read the halt back: %v", st)
	}
	if got := counted(rb); len(got) != 0 {
		t.Errorf("the halt read back after a restart was counted again: %v", got)
	}
}
