package policy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

// FuzzParse feeds arbitrary files to the policy decoder: it must never
// panic, and whatever it accepts must end with the default rule, answer
// every standard protocol name, and have Select agree with Explain.
func FuzzParse(f *testing.F) {
	f.Add(policy.DefaultYAML())
	if data, err := os.ReadFile(filepath.Join("..", "..", "examples", "policy.yaml")); err == nil {
		f.Add(data)
	}
	f.Add([]byte("version: 1\nrules:\n  - name: a\n    match: {group_globs: ['x-*'], callers: [{common_name: c}]}\n" +
		"    rollout: {percent: 50, salt: s, include: [x-1], exclude: [x-2]}\n    assignor: cooperative-sticky@1\n" +
		"    shadow: {assignor: cooperative-sticky@1, params: {max_moves_per_rebalance: 2}}\n"))
	f.Add([]byte("version: 1\nrules: [{name: b, match: {protocols: [range]}, assignor: roundrobin@1}]\n"))
	f.Add([]byte("version: 1\nrules:\n  - name: s\n    match: {group_globs: ['x-*']}\n    assignor: cooperative-sticky@1\n" +
		"    rollout: {include: [x-1], steps: [{percent: 1, hold: 1h}, {percent: 100}], gate: {min_groups: 2, max_moved_ratio: 0.1, on_fail: rollback}}\n"))
	f.Add([]byte("version: 1\nrules:\n  - &a {name: x, assignor: standard}\n  - *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := policy.Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		names := p.RuleNames()
		if names[len(names)-1] != policy.DefaultRule {
			t.Fatalf("rules %v do not end with the default rule", names)
		}
		again, err := policy.Parse("fuzz.yaml", data)
		if err != nil || again.Revision() != p.Revision() {
			t.Fatalf("parsing twice: %v, revisions %s and %s", err, p.Revision(), again.Revision())
		}
		callers := []selection.Caller{{}, {Subject: "CN=c,O=o", CommonName: "c"}}
		for _, name := range p.ProtocolNames() {
			for _, group := range []string{"", "x-1", "x-2", "orders"} {
				for _, c := range callers {
					e, err := p.Explain(group, name, c)
					if err != nil {
						if isStandard(name) {
							t.Fatalf("standard name %q unanswered: %v", name, err)
						}
						continue
					}
					sel, err := p.Select(selection.Query{GroupID: group, ProtocolName: name, Protocol: e.Protocol, Caller: c})
					if err != nil {
						t.Fatalf("Explain chose %s but Select failed: %v", e.Policy, err)
					}
					if sel.Policy != e.Policy || assign.Ref(sel.Assignor) != e.Assignor || !assign.Supports(sel.Assignor, e.Protocol) {
						t.Fatalf("Select %s %s, Explain %s %s (%s)", sel.Policy, assign.Ref(sel.Assignor), e.Policy, e.Assignor, e.Protocol)
					}
				}
			}
		}
	})
}

func isStandard(name string) bool {
	switch name {
	case assign.NameCooperativeSticky, assign.NameRange, assign.NameRoundRobin, assign.NameSticky:
		return true
	}
	return false
}
