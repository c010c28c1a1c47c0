package rolloutstate

import (
	"time"

	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// maxRevisions bounds the revisions a Machine remembers; beyond it the
// revision that started first is forgotten. A fleet keeps one revision at
// a time, two during a reload.
const maxRevisions = 32

// mode is where a rule's rollout is.
type mode int8

const (
	running mode = iota
	halted
	rolledBack
)

// ruleState is the agreed state of one rule of one revision.
type ruleState struct {
	// step is the agreed step; it serves from since. Before since, prev
	// serves (a verdict takes effect at its effective_at).
	step, prev int
	since      time.Time
	mode       mode
	reason     string
	failures   []*assigndv1.RolloutFailure
}

// rank orders states for merging STATE records: a later step, then a
// halt, is further.
func (r *ruleState) rank() int { return r.step*4 + int(r.mode) }

// revState is the agreed state of one revision.
type revState struct {
	started time.Time // zero until a SERVING record is read
	rules   map[string]*ruleState
}

// Machine is the replicated state of the rollouts: Apply the log's records
// in order, on every replica, and every replica holds the same state. It
// is not safe for concurrent use (the Controller locks it).
type Machine struct {
	revs  map[string]*revState
	order []string // revisions, by first record
}

// NewMachine returns an empty Machine.
func NewMachine() *Machine { return &Machine{revs: make(map[string]*revState)} }

func (m *Machine) rev(revision string) *revState {
	rs := m.revs[revision]
	if rs == nil {
		if len(m.order) >= maxRevisions {
			delete(m.revs, m.order[0])
			m.order = m.order[1:]
		}
		rs = &revState{rules: make(map[string]*ruleState)}
		m.revs[revision] = rs
		m.order = append(m.order, revision)
	}
	return rs
}

// rule returns the state of a rule, creating it at step 0.
func (rs *revState) rule(name string) *ruleState {
	r := rs.rules[name]
	if r == nil {
		r = &ruleState{since: rs.started}
		rs.rules[name] = r
	}
	return r
}

// Apply applies one record and reports whether it changed the state. A
// record that comes too late (a verdict for a step the rule has left, a
// second SERVING) changes nothing: the first one in the log won.
func (m *Machine) Apply(ev *assigndv1.RolloutEvent) bool {
	if ev.GetRevision() == "" {
		return false
	}
	at := ev.GetEffectiveAt().AsTime()
	switch ev.GetKind() {
	case assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_SERVING:
		rs := m.rev(ev.GetRevision())
		if !rs.started.IsZero() || ev.GetEffectiveAt() == nil {
			return false
		}
		rs.started = at
		for _, r := range rs.rules {
			if r.since.IsZero() {
				r.since = at
			}
		}
		return true
	case assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ADVANCE,
		assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_HALT,
		assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ROLLBACK:
		rs := m.revs[ev.GetRevision()]
		if rs == nil || rs.started.IsZero() || ev.GetRule() == "" {
			return false // no verdict before the rollout started
		}
		r := rs.rule(ev.GetRule())
		if r.mode != running || r.step != int(ev.GetStep()) {
			return false
		}
		r.prev = r.step
		switch ev.GetKind() {
		case assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_ADVANCE:
			r.step++
			r.since = at
		case assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_HALT:
			r.mode = halted
			r.since = at
		default:
			r.mode = rolledBack
			r.since = at
		}
		r.reason = ev.GetReason()
		r.failures = ev.GetFailures()
		return true
	case assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_STATE:
		rs := m.rev(ev.GetRevision())
		changed := false
		if rs.started.IsZero() && ev.GetStartedAt() != nil {
			rs.started = ev.GetStartedAt().AsTime()
			changed = true
		}
		if ev.GetRule() == "" {
			return changed
		}
		in := &ruleState{step: int(ev.GetStep()), prev: int(ev.GetStep()), since: at, reason: ev.GetReason(), failures: ev.GetFailures()}
		switch {
		case ev.GetRolledBack():
			in.mode = rolledBack
		case ev.GetHalted():
			in.mode = halted
		}
		r := rs.rules[ev.GetRule()]
		if r == nil {
			r = rs.rule(ev.GetRule())
		}
		if in.rank() > r.rank() {
			*r = *in
			changed = true
		}
		return changed
	}
	return false
}

// Started returns when the revision's rollouts started (false: not yet
// agreed).
func (m *Machine) Started(revision string) (time.Time, bool) {
	rs := m.revs[revision]
	if rs == nil || rs.started.IsZero() {
		return time.Time{}, false
	}
	return rs.started, true
}

// RuleState is a rule's agreed state, as Machine.Rule reports it.
type RuleState struct {
	// Step is the agreed step, serving from Since; before Since, Prev
	// serves.
	Step, Prev int
	Since      time.Time
	Halted     bool
	RolledBack bool
	Reason     string
	Failures   []*assigndv1.RolloutFailure
}

// Rule returns the agreed state of a rule of a started revision; false
// when the revision has not started (the rule serves step 0).
func (m *Machine) Rule(revision, rule string) (RuleState, bool) {
	rs := m.revs[revision]
	if rs == nil || rs.started.IsZero() {
		return RuleState{}, false
	}
	r := rs.rules[rule]
	if r == nil {
		return RuleState{Since: rs.started}, true
	}
	since := r.since
	if since.IsZero() {
		since = rs.started
	}
	return RuleState{Step: r.step, Prev: r.prev, Since: since, Halted: r.mode == halted, RolledBack: r.mode == rolledBack,
		Reason: r.reason, Failures: r.failures}, true
}

// StateRecords returns the STATE records of the revision's rules named,
// for re-publishing (none when the revision has not started). A rule with
// a verdict not yet in effect at now is left out: its record would make a
// replica that reads it first switch early.
func (m *Machine) StateRecords(revision string, rules []string, now time.Time) []*assigndv1.RolloutEvent {
	rs := m.revs[revision]
	if rs == nil || rs.started.IsZero() {
		return nil
	}
	var out []*assigndv1.RolloutEvent
	for _, name := range rules {
		st, _ := m.Rule(revision, name)
		if st.Since.After(now) {
			continue
		}
		out = append(out, &assigndv1.RolloutEvent{
			Kind: assigndv1.RolloutEventKind_ROLLOUT_EVENT_KIND_STATE, Revision: revision, Rule: name,
			Step: int32(st.Step), EffectiveAt: ts(st.Since), StartedAt: ts(rs.started),
			Halted: st.Halted, RolledBack: st.RolledBack, Reason: st.Reason, Failures: cloneFailures(st.Failures),
		})
	}
	return out
}

func cloneFailures(fs []*assigndv1.RolloutFailure) []*assigndv1.RolloutFailure {
	out := make([]*assigndv1.RolloutFailure, len(fs))
	for i, f := range fs {
		out[i] = proto.CloneOf(f)
	}
	return out
}
