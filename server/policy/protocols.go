package policy

import (
	"fmt"
	"strings"

	"github.com/assignd/assignd/assign"
)

// standardNames are the protocol names of the standard assignors; the
// policy always answers for them (the final "default" rule).
var standardNames = assign.StandardNames()

func isStandard(name string) bool {
	_, ok := assign.StandardOf(name)
	return ok
}

var bothProtocols = []assign.RebalanceProtocol{assign.Cooperative, assign.Eager}

// clientProtocols lists the rebalance protocols that the clients of a group
// with this protocol name may run, their default first
// ([assign.Standard.Protocols]), or nil for a name that is not standard:
// unknown, so both, and the assignor's own default.
//
// A rule's assignor (and shadow) must support every protocol the names it
// can match imply; Parse rejects it otherwise, so a policy can never hand a
// cooperative group an eager-only plan, and the engine's KIP-429 post-pass
// runs whenever the group is COOPERATIVE, whatever assignor was chosen.
func clientProtocols(name string) []assign.RebalanceProtocol {
	if std, ok := assign.StandardOf(name); ok {
		return std.Protocols
	}
	return nil
}

// requiredProtocols is the union of clientProtocols over names; no names
// (the rule matches every protocol name) or an unknown name requires both.
func requiredProtocols(names []string) []assign.RebalanceProtocol {
	if len(names) == 0 {
		return bothProtocols
	}
	var out []assign.RebalanceProtocol
	for _, n := range names {
		ps := clientProtocols(n)
		if ps == nil {
			return bothProtocols
		}
		for _, p := range ps {
			if !containsProtocol(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func containsProtocol(ps []assign.RebalanceProtocol, p assign.RebalanceProtocol) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// missingProtocols returns what a lacks of want, or nil.
func missingProtocols(a assign.Assignor, want []assign.RebalanceProtocol) []assign.RebalanceProtocol {
	var out []assign.RebalanceProtocol
	for _, p := range want {
		if !assign.Supports(a, p) {
			out = append(out, p)
		}
	}
	return out
}

// effectiveProtocol is the rebalance protocol a group runs: the one the
// request names, else its clients' default by protocol name, else (unknown
// names) the assignor's default.
func effectiveProtocol(requested assign.RebalanceProtocol, name string, a assign.Assignor) assign.RebalanceProtocol {
	if requested != assign.ProtocolUnspecified {
		return requested
	}
	if ps := clientProtocols(name); ps != nil {
		return ps[0]
	}
	return a.Protocols()[0]
}

func protocolList(ps []assign.RebalanceProtocol) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.String()
	}
	return strings.Join(s, " and ")
}

// protocolProblem explains why a cannot serve the protocol names of a rule,
// or returns "".
func protocolProblem(a assign.Assignor, names []string) string {
	missing := missingProtocols(a, requiredProtocols(names))
	if len(missing) == 0 {
		return ""
	}
	var who string
	switch {
	case len(names) == 0:
		who = "the rule matches every protocol name (add match.protocols to narrow it), so it must support EAGER and COOPERATIVE"
	default:
		who = fmt.Sprintf("clients of protocol name(s) %s run %s", quoteList(names), protocolList(requiredProtocols(names)))
	}
	return fmt.Sprintf("%s cannot serve this rule: %s, and it does not support %s", assign.Ref(a), who, protocolList(missing))
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}
