package policy

import (
	"context"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server"
)

var (
	_ server.Explainer = (*Policy)(nil)
	_ server.Explainer = (*Source)(nil)
)

// Explain reports which rule applies to a group with this protocol name
// and caller, and why: the answer of the ExplainPolicy RPC and of
// `assignctl policy explain`. The [server.Explanation] carries the rule's
// bucket under its salt (in [0, Buckets), whether or not the rule has a
// rollout), assignor, parameters and shadow, and why each earlier rule did
// not apply. An unknown protocol name is an error wrapping
// [server.ErrUnknownProtocol], as for Select; the Explanation's Skipped
// then still lists every rule.
func (p *Policy) Explain(groupID, protocolName string, caller server.Caller) (server.Explanation, error) {
	r, a, v, skipped, err := p.decide(groupID, protocolName, caller, true)
	if err != nil {
		return server.Explanation{Revision: p.revision, Bucket: Bucket("", groupID), Skipped: skipped}, err
	}
	bucket := Bucket(r.salt, groupID)
	e := server.Explanation{
		Policy:      r.policy,
		Rule:        r.name,
		Revision:    p.revision,
		Description: r.description,
		Bucket:      bucket,
		Reason:      r.reason(v, groupID, protocolName, caller, bucket),
		Assignor:    assign.Ref(a),
		Protocol:    effectiveProtocol(assign.ProtocolUnspecified, protocolName, a),
		Params:      server.PolicyParams(r.params),
		Skipped:     skipped,
	}
	if r.shadow != nil {
		e.Shadow = &server.ShadowPolicy{Assignor: assign.Ref(r.shadow.assignor), Params: server.PolicyParams(r.shadow.params)}
	}
	return e, nil
}

// ExplainPolicy implements [server.Explainer] with [Policy.Explain].
func (p *Policy) ExplainPolicy(_ context.Context, q server.Query) (server.Explanation, error) {
	return p.Explain(q.GroupID, q.ProtocolName, q.Caller)
}
