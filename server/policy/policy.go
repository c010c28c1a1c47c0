package policy

import (
	"fmt"
	"slices"
	"time"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/server/selection"
)

// Policy is one validated revision of a policy file: an ordered list of
// rules, the last of which is always DefaultRule. It is immutable and safe
// for concurrent use; a Source swaps whole Policies on reload.
type Policy struct {
	file     string
	revision string
	bindings []*binding
	rules    []*rule
	clusters map[string]kafkaconn.Config // load_clusters
}

// File is the name the policy was parsed under ("<embedded>" for Default).
func (p *Policy) File() string { return p.file }

// Revision identifies the policy's content: the first 12 hex digits of the
// SHA-256 of the file's bytes (`sha256sum FILE | cut -c1-12`). Replicas
// reading the same bytes report the same revision, and any edit, even to a
// comment, makes a new one, so a response's policy "rule/revision" pins
// exactly the file that chose its assignor.
func (p *Policy) Revision() string { return p.revision }

// RuleNames lists the rules in evaluation order, DefaultRule last.
func (p *Policy) RuleNames() []string {
	out := make([]string, len(p.rules))
	for i, r := range p.rules {
		out[i] = r.name
	}
	return out
}

// ProtocolNames lists the protocol names the policy can answer for: the
// four standard names and any other name a rule matches explicitly,
// sorted. A rule matching every name may serve further names.
func (p *Policy) ProtocolNames() []string {
	out := slices.Clone(standardNames)
	for _, r := range p.rules {
		for _, n := range r.protocols {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.Sort(out)
	return out
}

// decide finds the first rule that applies and its assignor. With
// explain set it also records why each earlier rule did not.
// view, when not nil, is the agreed state of the staged rules.
// Staged rules serve the step of view at now.
func (p *Policy) decide(groupID, name string, caller selection.Caller, explain bool, view *StepView, now time.Time) (*rule, assign.Assignor, verdict, []selection.SkippedRule, error) {
	if name == "" {
		return nil, nil, 0, nil, &unknownProtocolError{policy: p, msg: fmt.Sprintf(
			"%v: the protocol name is empty; policy revision %s answers for %s", selection.ErrUnknownProtocol, p.revision, quoteList(p.ProtocolNames()))}
	}
	var skipped []selection.SkippedRule
	for _, r := range p.rules {
		step, bp := r.serving(p.revision, view, now)
		v, a, bucket := r.evaluate(groupID, name, caller, bp)
		if v.applies() {
			return r, a, v, skipped, nil
		}
		if explain {
			skipped = append(skipped, selection.SkippedRule{Rule: r.name, Reason: r.reason(v, groupID, name, caller, bucket, bp, step)})
		}
	}
	return nil, nil, 0, skipped, &unknownProtocolError{policy: p, msg: fmt.Sprintf(
		"%v %q: no rule of policy revision %s applies (the default rule covers %s)", selection.ErrUnknownProtocol, name, p.revision, quoteList(standardNames))}
}

// unknownProtocolError is decide's error for a name no rule answers for.
// It wraps selection.ErrUnknownProtocol, the one Selector error the server
// reports to the client (INVALID_ARGUMENT on protocol_name), and lists the
// policy's ProtocolNames, which the server passes on in the error details.
type unknownProtocolError struct {
	policy *Policy
	msg    string
}

func (e *unknownProtocolError) Error() string           { return e.msg }
func (e *unknownProtocolError) Unwrap() error           { return selection.ErrUnknownProtocol }
func (e *unknownProtocolError) ProtocolNames() []string { return e.policy.ProtocolNames() }

// Select chooses the assignor for a query, as selection.Selector does, but
// without shadow evaluation or metrics (Source adds those). It is pure: the
// same policy revision gives the same answer on every replica.
func (p *Policy) Select(q selection.Query) (selection.Selection, error) {
	bound, err := p.authorize(q.GroupID, q.Caller)
	if err != nil {
		return selection.Selection{}, err
	}
	r, a, _, _, err := p.decide(q.GroupID, q.ProtocolName, q.Caller, false, nil, time.Time{})
	if err != nil {
		return selection.Selection{}, err
	}
	sel := r.selection(a, q)
	sel.RolloutStep, sel.RolloutStarted = r.servedStep(p.revision, nil, time.Time{})
	sel.Binding = bound
	return sel, nil
}

// selection is the server's Selection for rule r running a. Its Protocol
// is the one the group runs when the request leaves it unspecified: the
// protocol name's clients' default (see effectiveProtocol), not the
// assignor's, so that a rule may put any assignor that supports it behind
// a name without changing what the clients see.
func (r *rule) selection(a assign.Assignor, q selection.Query) selection.Selection {
	return selection.Selection{
		Assignor: a, Options: r.options, Policy: r.policy, LoadCluster: r.loadCluster,
		Protocol:  effectiveProtocol(q.Protocol, q.ProtocolName, a),
		KafkaLoad: r.params.LoadSource == LoadSourceKafka,
	}
}

// serving returns the step (-1 without steps) and basis points the rule
// serves at now under view: a staged rule without agreed state serves its
// first step.
func (r *rule) serving(revision string, view *StepView, now time.Time) (step, bp int) {
	if r.steps == nil {
		return -1, r.basisPoints
	}
	if view != nil && view.Revision == revision {
		if st, ok := view.Rules[r.name]; ok {
			return st.At(now)
		}
	}
	return 0, r.basisPoints
}

// servedStep is what a Selection reports of the step the rule serves at
// now under view (see Selection.RolloutStep): the step 1-based, 0 without
// steps, and the rollout's agreed start, zero when not known. Call it with
// the now decide was given, so that it names the step that admitted the
// group even when a switch falls in between.
func (r *rule) servedStep(revision string, view *StepView, now time.Time) (int, time.Time) {
	step, _ := r.serving(revision, view, now)
	if step < 0 {
		return 0, time.Time{}
	}
	// Past the last step's final watch the rollout is complete, serving
	// the last step (as Explain and the step gauge say).
	step = min(step, len(r.steps)-1)
	var started time.Time
	if view != nil && view.Revision == revision {
		if _, ok := view.Rules[r.name]; ok {
			started = view.Started
		}
	}
	return step + 1, started
}
