package policy_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

// matchPolicy has one rule per kind of match; inc and exc are the rollout
// rule's include and exclude entries.
func matchPolicy(t *testing.T, inc, exc string) *policy.Policy {
	return mustParse(t, fmt.Sprintf(`
version: 1
rules:
  - name: exact
    match: {groups: [orders, "weird*id"]}
    assignor: cooperative-sticky@1
  - name: prefix
    match: {group_prefixes: [pay-, bill-]}
    assignor: cooperative-sticky@1
  - name: glob
    match: {group_globs: ["team-*/ingest", "eu-?-billing", "shard-[0-3]", "cold-[!a-m]", 'lit-\*']}
    assignor: cooperative-sticky@1
  - name: protocol
    match: {group_prefixes: [proto-], protocols: [range, roundrobin]}
    assignor: roundrobin@1
  - name: common-name
    match: {group_prefixes: [sec-], callers: [{common_name: leader-a}]}
    assignor: cooperative-sticky@1
  - name: subject
    match: {group_prefixes: [sec-], callers: [{subject: "CN=leader-b,O=x"}]}
    assignor: cooperative-sticky@1
  - name: subject-and-cn
    match: {group_prefixes: [sec-], callers: [{subject: "CN=c,O=y", common_name: c}]}
    assignor: cooperative-sticky@1
  - name: rollout
    match: {group_prefixes: [g-]}
    rollout: {percent: 10, include: [%s], exclude: [%s]}
    assignor: cooperative-sticky@1
    params: {max_moves_per_rebalance: 5}
  - name: after-rollout
    match: {group_prefixes: [g-]}
    assignor: cooperative-sticky@1
  - name: custom
    match: {protocols: [my-assignor]}
    assignor: cooperative-sticky@1
`, inc, exc))
}

func TestRuleMatching(t *testing.T) {
	in := groupsInBuckets(t, 2, func(b int) bool { return b < 1000 })
	out := groupsInBuckets(t, 2, func(b int) bool { return b >= 1000 })
	inc, exc := out[1], in[1] // include one that the percentage leaves out, exclude one it takes
	p := matchPolicy(t, inc, exc)
	anon := selection.Caller{}
	cs := assign.NameCooperativeSticky
	tests := []struct {
		name     string
		group    string
		protocol string
		caller   selection.Caller
		rule     string
		reason   string
	}{
		{"exact", "orders", cs, anon, "exact", "matches"},
		{"exact is not a prefix", "orders-eu", cs, anon, "default", ""},
		{"exact with glob characters", "weird*id", cs, anon, "exact", ""},
		{"exact does not glob", "weirdXid", cs, anon, "default", ""},
		{"prefix", "pay-1", cs, anon, "prefix", ""},
		{"second prefix", "bill-", cs, anon, "prefix", ""},
		{"shorter than prefix", "pay", cs, anon, "default", ""},
		{"glob star crosses slash", "team-a/b/ingest", cs, anon, "glob", ""},
		{"glob star matches empty", "team-/ingest", cs, anon, "glob", ""},
		{"glob question mark", "eu-x-billing", cs, anon, "glob", ""},
		{"glob question mark is one char", "eu-xx-billing", cs, anon, "default", ""},
		{"glob class", "shard-2", cs, anon, "glob", ""},
		{"glob class excludes", "shard-4", cs, anon, "default", ""},
		{"glob negated class", "cold-z", cs, anon, "glob", ""},
		{"glob negated class excludes", "cold-b", cs, anon, "default", ""},
		{"glob escaped star is literal", "lit-*", cs, anon, "glob", ""},
		{"glob escaped star matches only itself", "lit-x", cs, anon, "default", ""},
		{"protocol", "proto-1", assign.NameRange, anon, "protocol", ""},
		{"second protocol", "proto-1", assign.NameRoundRobin, anon, "protocol", ""},
		{"protocol mismatch falls through", "proto-1", cs, anon, "default", ""},
		{"protocol mismatch to default range", "proto-1", assign.NameSticky, anon, "default", ""},
		{"caller common name", "sec-1", cs, selection.Caller{Subject: "CN=leader-a,O=z", CommonName: "leader-a"}, "common-name", ""},
		{"caller subject", "sec-1", cs, selection.Caller{Subject: "CN=leader-b,O=x", CommonName: "leader-b"}, "subject", ""},
		{"caller subject must be exact", "sec-1", cs, selection.Caller{Subject: "CN=leader-b,O=other", CommonName: "leader-b"}, "default", ""},
		{"caller both fields", "sec-1", cs, selection.Caller{Subject: "CN=c,O=y", CommonName: "c"}, "subject-and-cn", ""},
		{"caller both fields, one differs", "sec-1", cs, selection.Caller{Subject: "CN=c,O=y", CommonName: "d"}, "default", ""},
		{"anonymous caller matches no caller clause", "sec-1", cs, anon, "default", ""},
		{"rollout bucket in", in[0], cs, anon, "rollout", "is below 1000"},
		{"rollout bucket out falls through", out[0], cs, anon, "after-rollout", ""},
		{"rollout include wins over bucket", inc, cs, anon, "rollout", "rollout.include"},
		{"rollout exclude wins over bucket", exc, cs, anon, "after-rollout", ""},
		{"custom protocol name", "anything", "my-assignor", anon, "custom", ""},
		{"default for range", "x", assign.NameRange, anon, "default", ""},
		{"empty group id", "", cs, anon, "default", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := p.Explain(tt.group, tt.protocol, tt.caller)
			if err != nil {
				t.Fatalf("Explain: %v", err)
			}
			if e.Rule != tt.rule {
				t.Fatalf("rule = %q, want %q (skipped: %+v)", e.Rule, tt.rule, e.Skipped)
			}
			if want := tt.rule + "/" + p.Revision(); e.Policy != want {
				t.Errorf("policy = %q, want %q", e.Policy, want)
			}
			if !strings.Contains(e.Reason, tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", e.Reason, tt.reason)
			}
			if len(e.Skipped)+1 > len(p.RuleNames()) || (len(e.Skipped) > 0 && e.Skipped[0].Rule != "exact") {
				t.Errorf("skipped = %+v, want the rules before %q in order", e.Skipped, tt.rule)
			}
			sel, err := p.Select(selection.Query{GroupID: tt.group, ProtocolName: tt.protocol, Caller: tt.caller, Protocol: e.Protocol})
			if err != nil {
				t.Fatalf("Select: %v", err)
			}
			if sel.Policy != e.Policy || assign.Ref(sel.Assignor) != e.Assignor {
				t.Errorf("Select chose %s %s, Explain %s %s", sel.Policy, assign.Ref(sel.Assignor), e.Policy, e.Assignor)
			}
		})
	}
}

func TestDefaultRuleMapsStandardNames(t *testing.T) {
	for _, p := range []*policy.Policy{policy.Default(), mustParse(t, "version: 1\n")} {
		for _, name := range []string{assign.NameCooperativeSticky, assign.NameRange, assign.NameRoundRobin, assign.NameSticky} {
			e, err := p.Explain("any", name, selection.Caller{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if e.Rule != policy.DefaultRule || e.Assignor != name+"@1" {
				t.Errorf("%s: rule %q assignor %q, want default and %s@1", name, e.Rule, e.Assignor, name)
			}
			want := selection.PolicyParams{RackAware: true, LoadTolerance: assign.DefaultLoadTolerance, LoadHysteresis: assign.DefaultLoadHysteresis}
			if e.Params != want {
				t.Errorf("%s: params %+v, want the engine defaults", name, e.Params)
			}
		}
	}
}

func TestUnknownProtocolName(t *testing.T) {
	p := matchPolicy(t, "g-a", "g-b")
	_, err := p.Select(selection.Query{GroupID: "zzz", ProtocolName: "nope", Protocol: assign.Cooperative})
	if !errors.Is(err, selection.ErrUnknownProtocol) {
		t.Fatalf("Select error = %v, want ErrUnknownProtocol", err)
	}
	e, err := p.Explain("zzz", "nope", selection.Caller{})
	if !errors.Is(err, selection.ErrUnknownProtocol) {
		t.Fatalf("Explain error = %v, want ErrUnknownProtocol", err)
	}
	if len(e.Skipped) != len(p.RuleNames()) {
		t.Errorf("skipped %d rules, want all %d", len(e.Skipped), len(p.RuleNames()))
	}
	if last := e.Skipped[len(e.Skipped)-1]; last.Rule != "default" || !strings.Contains(last.Reason, "no standard assignor") {
		t.Errorf("default rule skipped as %+v", last)
	}
	if _, err := p.Explain("orders", "", selection.Caller{}); !errors.Is(err, selection.ErrUnknownProtocol) || !strings.Contains(err.Error(), "my-assignor") {
		t.Errorf("Explain without a protocol name: %v", err)
	}
	if got := p.ProtocolNames(); strings.Join(got, ",") != "cooperative-sticky,my-assignor,range,roundrobin,sticky" {
		t.Errorf("ProtocolNames = %v", got)
	}
}

// A request without a rebalance protocol runs its protocol name's
// default, whatever assignor the rule puts behind the name: the Selection
// tells the server which protocol to run, and Explain reports the same.
// A protocol the request names is passed through.
func TestUnspecifiedProtocolRunsNameDefault(t *testing.T) {
	p := mustParse(t, stickyForRange+`  - name: any-name
    assignor: cooperative-sticky@1
`)
	tests := []struct {
		protocol string
		req      assign.RebalanceProtocol
		want     assign.RebalanceProtocol
		explain  assign.RebalanceProtocol
	}{
		{assign.NameRange, assign.Eager, assign.Eager, assign.Eager},
		{assign.NameRange, assign.ProtocolUnspecified, assign.Eager, assign.Eager},
		{assign.NameCooperativeSticky, assign.ProtocolUnspecified, assign.Cooperative, assign.Cooperative},
		{assign.NameCooperativeSticky, assign.Eager, assign.Eager, assign.Cooperative},
		{"custom", assign.ProtocolUnspecified, assign.Cooperative, assign.Cooperative},
		{assign.NameSticky, assign.ProtocolUnspecified, assign.Eager, assign.Eager},
	}
	for _, tt := range tests {
		sel, err := p.Select(selection.Query{GroupID: "g", ProtocolName: tt.protocol, Protocol: tt.req})
		if err != nil || sel.Protocol != tt.want {
			t.Errorf("%s/%s: Select protocol %s (%v), want %s", tt.protocol, tt.req, sel.Protocol, err, tt.want)
		}
		e, err := p.Explain("g", tt.protocol, selection.Caller{})
		if err != nil || e.Protocol != tt.explain {
			t.Errorf("%s: Explain protocol %s (%v), want %s", tt.protocol, e.Protocol, err, tt.explain)
		}
	}
}
