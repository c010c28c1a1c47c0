package rollout

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"sync"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
)

// Source is what the Controller drives: the policy revision serving and
// the view of the staged rules it serves from. *policy.Source implements
// it.
type Source interface {
	Policy() *policy.Policy
	SetSteps(v *policy.StepView)
}

// Controller drives the staged rollouts of one replica: it applies the
// log's records to its Machine, evaluates gates when a step's hold has
// passed, publishes verdicts, and keeps the Source's view of the agreed
// steps. Assign never waits for it: the Source reads the view from an
// atomic pointer.
type Controller struct {
	cfg         config
	src         Source
	hist        *history.Store
	log         Log
	incarnation uint64
	m           *instruments

	mu       sync.Mutex
	machine  *Machine
	serving  map[string]time.Time // revision → when this run last published SERVING
	agreed   map[string]bool      // revisions whose own SERVING was read back
	proposed map[proposal]time.Time
	evals    map[evalKey]*evaluation
	republ   time.Time // last re-publishing
	lastRev  string    // the revision of the last Tick

	stop chan struct{}
	wg   sync.WaitGroup
}

type proposal struct {
	revision, rule string
	step           int
}

type evalKey struct{ revision, rule string }

// evaluation is the last gate evaluation of a rule, for the status.
type evaluation struct {
	step    int
	at      time.Time
	next    time.Time
	summary string
}

// New returns a Controller of src's staged rules, reading the decisions of
// hist (nil: gates see no groups, and a step with min_groups or limits
// never advances; without a gate steps advance on time) and agreeing
// through log. Apply must receive every record of log, in order, from
// before the Controller starts.
func New(src Source, hist *history.Store, log Log, opts ...Option) (*Controller, error) {
	cfg := defaults()
	for _, o := range opts {
		o.apply(&cfg)
	}
	switch {
	case src == nil || log == nil:
		return nil, errors.New("rollout: a Controller needs a Source and a Log")
	case cfg.switchDelay < 0 || cfg.evaluateEvery <= 0 || cfg.tick <= 0 || cfg.republish < 0 || cfg.retry <= 0:
		return nil, errors.New("rollout: the switch delay and republish period must not be negative, the other periods must be positive")
	}
	m, err := newInstruments(cfg.meters)
	if err != nil {
		return nil, err
	}
	c := &Controller{
		cfg: cfg, src: src, hist: hist, log: log, incarnation: newIncarnation(), m: m,
		machine: NewMachine(), serving: make(map[string]time.Time), agreed: make(map[string]bool),
		proposed: make(map[proposal]time.Time), evals: make(map[evalKey]*evaluation),
	}
	if err := m.register(c); err != nil {
		return nil, err
	}
	return c, nil
}

func newIncarnation() uint64 {
	var b [8]byte
	for {
		_, _ = rand.Read(b[:])
		if n := binary.BigEndian.Uint64(b[:]); n != 0 {
			return n
		}
	}
}

// Start runs Tick every tick until Close.
func (c *Controller) Start() {
	c.stop = make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		t := time.NewTicker(c.cfg.tick)
		defer t.Stop()
		c.Tick()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				c.Tick()
			}
		}
	}()
}

// Close stops the Controller and unregisters its metrics. The Source keeps
// the last view.
func (c *Controller) Close() error {
	if c.stop != nil {
		close(c.stop)
		c.wg.Wait()
		c.stop = nil
	}
	return c.m.unregister()
}

// Apply applies a record read from the log. Call it for every record, in
// log order, this replica's own included.
func (c *Controller) Apply(ev *assigndv1.RolloutEvent) {
	c.mu.Lock()
	changed := c.machine.Apply(ev)
	own := ev.GetReplica() == c.cfg.replica && ev.GetIncarnation() == c.incarnation
	if own && ev.GetKind() == assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_SERVING {
		c.agreed[ev.GetRevision()] = true
	}
	// A verdict read after this run's own SERVING of the revision is
	// news; one before it is the log read back after a restart, counted
	// already by the run that read it live.
	live := c.agreed[ev.GetRevision()]
	c.refresh(c.src.Policy())
	c.mu.Unlock()
	if !changed {
		return
	}
	switch ev.GetKind() {
	case assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_HALT, assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ROLLBACK:
		if live {
			c.m.halt(ev)
		}
		c.cfg.logger.Warn("staged rollout stopped", "revision", ev.GetRevision(), "rule", ev.GetRule(), "step", ev.GetStep()+1,
			"kind", ev.GetKind().String(), "effective_at", ev.GetEffectiveAt().AsTime(), "reason", ev.GetReason(), "by", ev.GetReplica())
	case assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ADVANCE:
		c.cfg.logger.Info("staged rollout advances", "revision", ev.GetRevision(), "rule", ev.GetRule(), "to_step", ev.GetStep()+2,
			"effective_at", ev.GetEffectiveAt().AsTime(), "reason", ev.GetReason(), "by", ev.GetReplica())
	}
}

// Tick does what is due now: publish SERVING for the serving revision,
// evaluate the gates due, publish verdicts and re-publish the state. It
// is what Start runs periodically; tests call it with an injected clock.
func (c *Controller) Tick() {
	now := c.cfg.now()
	p := c.src.Policy()
	rev := p.Revision()
	staged := p.StagedRules()
	var out []*assigndv1.RolloutEvent
	c.mu.Lock()
	if rev != c.lastRev {
		c.forget(rev)
	}
	if len(staged) > 0 {
		out = c.due(p, staged, now)
	} else {
		// No staged rule serves, but other revisions' halts still need
		// re-publishing (the file may go back to one).
		out = c.republishDue(rev, nil, now)
	}
	c.refresh(p)
	c.mu.Unlock()
	for _, ev := range out {
		ev.Time = ts(now)
		ev.Replica, ev.Incarnation = c.cfg.replica, c.incarnation
		if ev.Revision == "" {
			ev.Revision = rev
		}
		c.log.Publish(ev)
	}
}

// due returns the records to publish now, under c.mu.
func (c *Controller) due(p *policy.Policy, staged []policy.StagedRule, now time.Time) []*assigndv1.RolloutEvent {
	rev := p.Revision()
	var out []*assigndv1.RolloutEvent
	if last, ok := c.serving[rev]; !c.agreed[rev] && (!ok || now.Sub(last) >= c.cfg.retry) {
		c.serving[rev] = now
		out = append(out, &assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_SERVING, EffectiveAt: ts(now)})
	}
	if !c.agreed[rev] {
		return out // no verdict before this replica has caught up with the log
	}
	for _, sr := range staged {
		st, ok := c.machine.Rule(rev, sr.Rule)
		if !ok || st.Halted || st.RolledBack || now.Before(st.Since) || st.Step >= len(sr.Steps) {
			continue
		}
		hold := sr.Steps[st.Step].Hold
		if st.Step == len(sr.Steps)-1 && hold == 0 {
			continue // the last step, with no final watch: done
		}
		k := evalKey{rev, sr.Rule}
		e := c.evals[k]
		if e != nil && e.step == st.Step && now.Before(e.next) {
			continue
		}
		step := Step{Index: st.Step, Since: st.Since}
		step.Started, _ = c.machine.Started(rev)
		var groups []history.RuleGroup
		if c.hist != nil && sr.Gate != nil {
			groups = c.hist.RuleGroups(sr.Rule, rev, step.Served)
		}
		v := Evaluate(p, sr.Rule, sr.Gate, step, groups)
		minGroups := 0
		if sr.Gate != nil {
			minGroups = sr.Gate.MinGroups
		}
		e = &evaluation{step: st.Step, at: now, next: now.Add(c.cfg.evaluateEvery), summary: v.Summary(minGroups)}
		if sr.Gate == nil {
			e.summary = "no gate: the step advances when its hold has passed"
		}
		c.evals[k] = e
		var ev *assigndv1.RolloutEvent
		switch {
		case v.Failed():
			kind := assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_HALT
			if sr.Gate.OnFail == policy.OnFailRollback {
				kind = assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ROLLBACK
			}
			ev = &assigndv1.RolloutEvent{Kind: kind, Reason: e.summary, Failures: v.Failures}
		case !now.Before(st.Since.Add(hold)) && v.Enough:
			ev = &assigndv1.RolloutEvent{Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ADVANCE, Reason: e.summary}
		default:
			if now.Before(st.Since.Add(hold)) && e.next.After(st.Since.Add(hold)) {
				e.next = st.Since.Add(hold) // evaluate again right when the hold ends
			}
			continue
		}
		pk := proposal{rev, sr.Rule, st.Step}
		if at, ok := c.proposed[pk]; ok && now.Sub(at) < c.cfg.retry {
			continue
		}
		c.proposed[pk] = now
		ev.Rule, ev.Step, ev.EffectiveAt = sr.Rule, int32(st.Step), ts(now.Add(c.cfg.switchDelay))
		out = append(out, ev)
	}
	return append(out, c.republishDue(rev, staged, now)...)
}

// republishDue returns the STATE records to re-publish now, if it is time,
// under c.mu: the halts of other revisions, then the state of rev's
// staged rules, last so that rev stays the Machine's most recently used.
func (c *Controller) republishDue(rev string, staged []policy.StagedRule, now time.Time) []*assigndv1.RolloutEvent {
	if c.cfg.republish <= 0 || now.Sub(c.republ) < c.cfg.republish {
		return nil
	}
	c.republ = now
	names := make([]string, len(staged))
	for i, sr := range staged {
		names[i] = sr.Rule
	}
	return append(c.machine.StoppedRecords(rev, now), c.machine.StateRecords(rev, names, now)...)
}

// forget drops what this run noted about other revisions than rev, under
// c.mu, so that reloads do not pile it up; the Machine keeps the agreed
// state (bounded by maxRevisions). Should the file go back to such a
// revision, its SERVING is published and read back again (the first one
// in the log still wins), which changes nothing.
func (c *Controller) forget(rev string) {
	c.lastRev = rev
	for r := range c.serving {
		if r != rev {
			delete(c.serving, r)
			delete(c.agreed, r)
		}
	}
	for k := range c.proposed {
		if k.revision != rev {
			delete(c.proposed, k)
		}
	}
	for k := range c.evals {
		if k.revision != rev {
			delete(c.evals, k)
		}
	}
}

// refresh gives the Source the view of p's revision, under c.mu.
func (c *Controller) refresh(p *policy.Policy) {
	staged := p.StagedRules()
	if len(staged) == 0 {
		c.src.SetSteps(nil)
		return
	}
	rev := p.Revision()
	v := &policy.StepView{Revision: rev, Rules: make(map[string]policy.StepState, len(staged))}
	v.Started, _ = c.machine.Started(rev)
	for _, sr := range staged {
		st, ok := c.machine.Rule(rev, sr.Rule)
		if !ok {
			continue
		}
		v.Rules[sr.Rule] = stepState(sr, st)
	}
	c.src.SetSteps(v)
}

// stepState turns a rule's agreed state into what it serves.
func stepState(sr policy.StagedRule, st RuleState) policy.StepState {
	bp := func(step int) int { return sr.Steps[min(step, len(sr.Steps)-1)].BasisPoints }
	out := policy.StepState{Step: st.Step, BasisPoints: bp(st.Step)}
	switch {
	case st.RolledBack:
		out = policy.StepState{Step: st.Prev, BasisPoints: bp(st.Prev), NextStep: st.Step, NextBasisPoints: -1, SwitchAt: st.Since}
	case st.Prev != st.Step:
		out = policy.StepState{Step: st.Prev, BasisPoints: bp(st.Prev), NextStep: st.Step, NextBasisPoints: bp(st.Step), SwitchAt: st.Since}
	}
	return out
}

// Agreed reports whether this replica has read its own SERVING record of
// the revision back: it then holds the agreed state, and may make
// verdicts.
func (c *Controller) Agreed(revision string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.agreed[revision]
}

// Run is Start, then Close when ctx ends; it returns after Close.
func (c *Controller) Run(ctx context.Context) error {
	c.Start()
	<-ctx.Done()
	return c.Close()
}
