package rollout

import (
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Bounds on what a Machine keeps, whatever the log holds (a replica on an
// old file, a buggy or hostile writer of the history topic).
const (
	// maxRevisions bounds the revisions a Machine remembers; beyond it
	// the revision whose last record is the oldest is forgotten. A fleet
	// serves one revision at a time, two during a reload, and the serving
	// one is in the log at least every republish period (STATE), so the
	// records of old revisions (a late verdict, a replica on an old file)
	// cannot push it out.
	maxRevisions = 32
	// maxRules bounds the rules of one revision a Machine keeps state for;
	// a record naming one more rule is ignored (its rule serves step 0).
	maxRules = 1024
	// maxReason bounds the bytes of a kept reason.
	maxReason = 1024
	// maxStopped bounds the revisions other than the serving one whose
	// halts are re-published (see [Machine.StoppedRecords]); well under
	// maxRevisions, so that re-publishing them cannot push out the
	// serving revision.
	maxStopped = 8
)

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

// rev returns the state of a revision, creating it, and makes it the most
// recently used.
func (m *Machine) rev(revision string) *revState {
	rs := m.revs[revision]
	if rs != nil {
		m.touch(revision)
		return rs
	}
	if len(m.order) >= maxRevisions {
		delete(m.revs, m.order[0])
		m.order = slices.Delete(m.order, 0, 1)
	}
	rs = &revState{rules: make(map[string]*ruleState)}
	m.revs[revision] = rs
	m.order = append(m.order, revision)
	return rs
}

// touch moves a remembered revision to the end of the order (the last to
// be forgotten).
func (m *Machine) touch(revision string) {
	if i := slices.Index(m.order, revision); i >= 0 && i < len(m.order)-1 {
		m.order = append(slices.Delete(m.order, i, i+1), revision)
	}
}

// rule returns the state of a rule, creating it at step 0; nil when the
// revision already keeps maxRules rules.
func (rs *revState) rule(name string) *ruleState {
	r := rs.rules[name]
	if r == nil {
		if len(rs.rules) >= maxRules {
			return nil
		}
		r = &ruleState{since: rs.started}
		rs.rules[name] = r
	}
	return r
}

// kept bounds what a record says for keeping: its reason and failures.
func kept(ev *assigndv1.RolloutEvent) (string, []*assigndv1.RolloutFailure) {
	reason, fs := ev.GetReason(), ev.GetFailures()
	if len(reason) > maxReason {
		reason = strings.ToValidUTF8(reason[:maxReason], "")
	}
	return reason, fs[:min(len(fs), maxFailures)]
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
		m.touch(ev.GetRevision())
		r := rs.rule(ev.GetRule())
		if r == nil || r.mode != running || r.step != int(ev.GetStep()) {
			return false
		}
		// A verdict is made once the step serves, so it takes effect after
		// the step began; one that says otherwise comes from a clock
		// behind. It takes effect when the step began, not before: the
		// next step's hold never counts time from before this one.
		if at.Before(r.since) {
			at = r.since
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
		r.reason, r.failures = kept(ev)
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
		if ev.GetStep() < 0 || ev.GetEffectiveAt() == nil {
			return changed
		}
		// The step before serves until since, as after the ADVANCE that
		// led to the step (a step is always reached from the one before):
		// a replica reading the record before since, its clock behind the
		// one that published it, switches when the others do. A halt or a
		// rollback left the step it stopped at serving until since.
		in := &ruleState{step: int(ev.GetStep()), prev: max(int(ev.GetStep())-1, 0), since: at}
		in.reason, in.failures = kept(ev)
		switch {
		case ev.GetRolledBack():
			in.mode, in.prev = rolledBack, in.step
		case ev.GetHalted():
			in.mode, in.prev = halted, in.step
		}
		r := rs.rule(ev.GetRule())
		if r == nil {
			return changed
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

// StoppedRecords returns the STATE records of the halted and rolled-back
// rules of the remembered revisions other than except (the serving one),
// for re-publishing: at most maxStopped revisions, the most recently used,
// in the order they were used (publish them before the serving
// revision's, which then stays the most recently used). Their halts then
// outlive the topic's retention while another revision serves, so that
// going back to a revision's bytes still brings back its halt.
func (m *Machine) StoppedRecords(except string, now time.Time) []*assigndv1.RolloutEvent {
	var revs []string
	for i := len(m.order) - 1; i >= 0 && len(revs) < maxStopped; i-- {
		rev := m.order[i]
		if rs := m.revs[rev]; rev != except && !rs.started.IsZero() && rs.stopped() {
			revs = append(revs, rev)
		}
	}
	var out []*assigndv1.RolloutEvent
	for _, rev := range slices.Backward(revs) {
		var names []string
		for name, r := range m.revs[rev].rules {
			if r.mode != running {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		out = append(out, m.StateRecords(rev, names, now)...)
	}
	return out
}

// stopped reports whether a rule of the revision halted or rolled back.
func (rs *revState) stopped() bool {
	for _, r := range rs.rules {
		if r.mode != running {
			return true
		}
	}
	return false
}
