package policy

import (
	"context"
	"time"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/selection"
)

var (
	_ selection.Explainer = (*Policy)(nil)
	_ selection.Explainer = (*Source)(nil)
)

// Explain reports which rule applies to a group with this protocol name
// and caller, and why: the answer of the ExplainPolicy RPC and of
// `assignctl policy explain`. The [selection.Explanation] carries the rule's
// bucket under its salt (in [0, Buckets), whether or not the rule has a
// rollout), assignor, parameters and shadow, and why each earlier rule did
// not apply. An unknown protocol name is an error wrapping
// [selection.ErrUnknownProtocol], as for Select; the Explanation's Skipped
// then still lists every rule.
func (p *Policy) Explain(groupID, protocolName string, caller selection.Caller) (selection.Explanation, error) {
	return p.explain(groupID, protocolName, caller, nil)
}

// explain explains the choice under view (nil: staged rules at their
// first step).
func (p *Policy) explain(groupID, protocolName string, caller selection.Caller, view *StepView) (selection.Explanation, error) {
	now := time.Now()
	r, a, v, skipped, err := p.decide(groupID, protocolName, caller, true, view, now)
	if err != nil {
		return selection.Explanation{Revision: p.revision, Bucket: Bucket("", groupID), Skipped: skipped}, err
	}
	bucket := Bucket(r.salt, groupID)
	step, bp := r.serving(p.revision, view, now)
	e := selection.Explanation{
		Policy:      r.policy,
		Rule:        r.name,
		Revision:    p.revision,
		Description: r.description,
		Bucket:      bucket,
		Reason:      r.reason(v, groupID, protocolName, caller, bucket, bp, step),
		Assignor:    assign.Ref(a),
		Protocol:    effectiveProtocol(assign.ProtocolUnspecified, protocolName, a),
		Params:      r.params,
		Skipped:     skipped,
	}
	if r.shadow != nil {
		e.Shadow = &selection.ShadowPolicy{Assignor: assign.Ref(r.shadow.assignor), Params: r.shadow.params}
	}
	return e, nil
}

// ExplainPolicy implements [selection.Explainer] with [Policy.Explain],
// and for a streams group (q.GroupType) explains its task assignor.
func (p *Policy) ExplainPolicy(_ context.Context, q selection.Query) (selection.Explanation, error) {
	if q.GroupType == selection.GroupStreams {
		return p.explainTasks(q.GroupID, q.Caller, nil)
	}
	return p.Explain(q.GroupID, q.ProtocolName, q.Caller)
}
