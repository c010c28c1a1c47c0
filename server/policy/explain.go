package policy

import (
	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server"
)

// Explanation says what the policy does for one group, protocol name and
// caller, and why: the answer of the ExplainPolicy RPC and of `assignctl
// policy explain`.
type Explanation struct {
	// Policy is "rule/revision", as AssignResponse.policy reports it.
	Policy   string
	Rule     string
	Revision string
	// Description is the rule's description field.
	Description string
	// Bucket is the group's rollout bucket under the rule's salt, in
	// [0, Buckets), whether or not the rule has a rollout.
	Bucket int
	// Reason says why the rule applies, e.g. "bucket 412 is below 1000
	// (rollout.percent 10)" or "group is in rollout.include".
	Reason string
	// Assignor is what runs, as "name@version".
	Assignor string
	// Protocol is the rebalance protocol a request that leaves
	// rebalance_protocol unspecified runs (see the package documentation).
	Protocol assign.RebalanceProtocol
	Params   Params
	// Shadow is the rule's shadow assignor, nil when it has none.
	Shadow *ShadowExplanation
	// Skipped lists the rules before Rule, each with why it did not apply.
	Skipped []Skip
}

// ShadowExplanation is a rule's shadow: computed on the same input as the
// assignor, compared, never returned.
type ShadowExplanation struct {
	Assignor string
	Params   Params
}

// Skip is a rule that did not apply, and why.
type Skip struct {
	Rule   string
	Reason string
}

// Explain reports which rule applies to a group with this protocol name
// and caller, with its bucket, assignor, parameters and shadow, and why
// each earlier rule did not apply. An unknown protocol name is an error
// wrapping server.ErrUnknownProtocol, as for Select; the Explanation's
// Skipped then still lists every rule.
func (p *Policy) Explain(groupID, protocolName string, caller server.Caller) (Explanation, error) {
	r, a, v, skipped, err := p.decide(groupID, protocolName, caller, true)
	if err != nil {
		return Explanation{Revision: p.revision, Bucket: Bucket("", groupID), Skipped: skipped}, err
	}
	bucket := Bucket(r.salt, groupID)
	e := Explanation{
		Policy:      r.policy,
		Rule:        r.name,
		Revision:    p.revision,
		Description: r.description,
		Bucket:      bucket,
		Reason:      r.reason(v, groupID, protocolName, caller, bucket),
		Assignor:    assign.Ref(a),
		Protocol:    effectiveProtocol(assign.ProtocolUnspecified, protocolName, a),
		Params:      r.params,
		Skipped:     skipped,
	}
	if r.shadow != nil {
		e.Shadow = &ShadowExplanation{Assignor: assign.Ref(r.shadow.assignor), Params: r.shadow.params}
	}
	return e, nil
}
