package policy

import (
	"fmt"
	"slices"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server"
)

// Policy is one validated revision of a policy file: an ordered list of
// rules, the last of which is always DefaultRule. It is immutable and safe
// for concurrent use; a Source swaps whole Policies on reload.
type Policy struct {
	file     string
	revision string
	rules    []*rule
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
func (p *Policy) decide(groupID, name string, caller server.Caller, explain bool) (*rule, assign.Assignor, verdict, []Skip, error) {
	if name == "" {
		return nil, nil, 0, nil, fmt.Errorf("%w: the protocol name is empty; policy revision %s answers for %s",
			server.ErrUnknownProtocol, p.revision, quoteList(p.ProtocolNames()))
	}
	var skipped []Skip
	for _, r := range p.rules {
		v, a, bucket := r.evaluate(groupID, name, caller)
		if v.applies() {
			return r, a, v, skipped, nil
		}
		if explain {
			skipped = append(skipped, Skip{Rule: r.name, Reason: r.reason(v, groupID, name, caller, bucket)})
		}
	}
	return nil, nil, 0, skipped, fmt.Errorf("%w %q: no rule of policy revision %s applies (the default rule covers %s)",
		server.ErrUnknownProtocol, name, p.revision, quoteList(standardNames))
}

// Select chooses the assignor for a query, as server.Selector does, but
// without shadow evaluation or metrics (Source adds those). It is pure: the
// same policy revision gives the same answer on every replica.
func (p *Policy) Select(q server.Query) (server.Selection, error) {
	r, a, err := p.choose(q)
	if err != nil {
		return server.Selection{}, err
	}
	return server.Selection{Assignor: a, Options: r.options, Policy: r.policy}, nil
}

// choose is the request path's rule and assignor lookup.
func (p *Policy) choose(q server.Query) (*rule, assign.Assignor, error) {
	r, a, _, _, err := p.decide(q.GroupID, q.ProtocolName, q.Caller, false)
	if err != nil {
		return nil, nil, err
	}
	if err := checkUnspecified(r, a, q); err != nil {
		return nil, nil, err
	}
	return r, a, nil
}

// checkUnspecified guards requests without a rebalance protocol. The
// engine then runs the assignor's default protocol, but the clients expect
// their protocol name's default (clientProtocols): a rule that puts
// cooperative-sticky behind "range" would hand eager clients a cooperative
// plan. server.Selection cannot yet tell the server which protocol to run,
// so such requests are refused with a message telling the caller to name
// the protocol; requests that name it, and every rule whose assignor's
// default agrees with the name's, are unaffected.
func checkUnspecified(r *rule, a assign.Assignor, q server.Query) error {
	if q.Protocol != assign.ProtocolUnspecified {
		return nil
	}
	want := effectiveProtocol(q.Protocol, q.ProtocolName, a)
	if got := a.Protocols()[0]; got != want {
		return &protocolRequiredError{msg: fmt.Sprintf(
			"protocol name %q: rule %q runs %s, whose default rebalance protocol is %s, but clients of this name run %s: set rebalance_protocol in the request",
			q.ProtocolName, r.name, assign.Ref(a), got, want)}
	}
	return nil
}

// protocolRequiredError is checkUnspecified's refusal. It wraps
// server.ErrUnknownProtocol, the one Selector error the server reports to
// the client as INVALID_ARGUMENT (on protocol_name) rather than INTERNAL,
// with a message of its own.
type protocolRequiredError struct{ msg string }

func (e *protocolRequiredError) Error() string { return e.msg }
func (e *protocolRequiredError) Unwrap() error { return server.ErrUnknownProtocol }
