package policy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/policytest"
)

const boundPolicy = `version: 1
bindings:
  - name: ledger
    groups: [payments-ledger]
    callers:
      - common_name: ledger-leader
  - name: payments
    group_prefixes: [payments-]
    callers:
      - common_name: payments-leader
      - subject: "CN=platform,O=ops"
  - name: etl
    group_globs: ["analytics-*-etl"]
    callers:
      - subject: "CN=etl,O=analytics"
        common_name: etl
`

// TestBindings: the first binding whose groups match decides; a caller
// must match one of its entries; a group no binding covers is open to any
// caller, authenticated or not; an unauthenticated caller may request no
// bound group.
func TestBindings(t *testing.T) {
	p, err := policy.Parse("bound.yaml", []byte(boundPolicy))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(p.Bindings(), ","); got != "ledger,payments,etl" {
		t.Errorf("Bindings() = %s", got)
	}
	payments := selection.Caller{Subject: "CN=payments-leader,O=payments", CommonName: "payments-leader"}
	platform := selection.Caller{Subject: "CN=platform,O=ops", CommonName: "platform"}
	ledger := selection.Caller{Subject: "CN=ledger-leader,O=payments", CommonName: "ledger-leader"}
	etl := selection.Caller{Subject: "CN=etl,O=analytics", CommonName: "etl"}
	etlElsewhere := selection.Caller{Subject: "CN=etl,O=elsewhere", CommonName: "etl"}
	var anon selection.Caller
	tests := []struct {
		group   string
		caller  selection.Caller
		binding string // "" with ok: unbound
		ok      bool
	}{
		{"payments-eu", payments, "payments", true},
		{"payments-eu", platform, "payments", true},
		{"payments-eu", ledger, "payments", false},
		{"payments-eu", anon, "payments", false},
		// The first binding that covers the group decides: the ledger
		// binding comes before the prefix, so the payments leader may not.
		{"payments-ledger", ledger, "ledger", true},
		{"payments-ledger", payments, "ledger", false},
		{"analytics-daily-etl", etl, "etl", true},
		{"analytics-daily-etl", etlElsewhere, "etl", false}, // both fields of the entry must match
		{"orders", anon, "", true},
		{"orders", ledger, "", true},
	}
	for _, tt := range tests {
		sel, err := p.Select(selection.Query{GroupID: tt.group, ProtocolName: "cooperative-sticky", Caller: tt.caller})
		if tt.ok {
			if err != nil || sel.Binding != tt.binding {
				t.Errorf("%s by %q: binding %q, %v; want allowed by %q", tt.group, tt.caller.Subject, sel.Binding, err, tt.binding)
			}
			continue
		}
		var ce *policy.CallerError
		if !errors.As(err, &ce) || !errors.Is(err, selection.ErrCallerNotAllowed) || ce.Binding != tt.binding {
			t.Errorf("%s by %q: %v; want a CallerError of binding %q", tt.group, tt.caller.Subject, err, tt.binding)
			continue
		}
		for _, want := range []string{`group "` + tt.group + `"`, `binding "` + tt.binding + `"`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%q does not say %s", err, want)
			}
		}
		if tt.caller == anon && !strings.Contains(err.Error(), "unauthenticated") {
			t.Errorf("%q does not say the caller is unauthenticated", err)
		}
		if tt.caller != anon && !strings.Contains(err.Error(), tt.caller.Subject) {
			t.Errorf("%q does not name the caller", err)
		}
	}
	// The Source (what assignd serves) refuses as the Policy does.
	src := policytest.ServePolicy(t, p)
	if _, err := src.Select(context.Background(), selection.Query{GroupID: "payments-eu", ProtocolName: "range", Caller: ledger}); !errors.Is(err, selection.ErrCallerNotAllowed) {
		t.Errorf("Source.Select: %v, want ErrCallerNotAllowed", err)
	}
}

// TestBindingsRejects: invalid bindings are reported at load, with their
// line and path.
func TestBindingsRejects(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"no name", `version: 1
bindings:
  - groups: [a]
    callers: [{common_name: x}]
`, []string{"test.yaml:3: bindings[0].name: a binding needs a name"}},
		{"bad and duplicate names", `version: 1
bindings:
  - name: a/b
    groups: [a]
    callers: [{common_name: x}]
  - name: c
    groups: [c]
    callers: [{common_name: x}]
  - name: c
    groups: [d]
    callers: [{common_name: x}]
`, []string{"test.yaml:3: bindings[0].name: must be 1-63", "test.yaml:9: bindings[2].name: duplicate binding name (also bindings[1])"}},
		{"no groups", `version: 1
bindings:
  - name: a
    callers: [{common_name: x}]
`, []string{`test.yaml:3: bindings[0]: a binding needs groups, group_prefixes or group_globs`}},
		{"no callers", `version: 1
bindings:
  - name: a
    group_prefixes: [a-]
`, []string{"test.yaml:3: bindings[0].callers: a binding needs callers"}},
		{"empty lists", `version: 1
bindings:
  - name: a
    groups: []
    callers: []
`, []string{"test.yaml:4: bindings[0].groups: an empty list would match nothing", "test.yaml:5: bindings[0].callers: an empty list"}},
		{"empty caller entry and bad glob", `version: 1
bindings:
  - name: a
    group_globs: ["a-[x"]
    callers:
      - common_name: ok
      - {}
`, []string{`test.yaml:4: bindings[0].group_globs[0]: bad glob "a-[x"`, "test.yaml:7: bindings[0].callers[1]: a caller entry needs subject or common_name"}},
		{"unknown field", `version: 1
bindings:
  - name: a
    group: [a]
    callers: [{common_name: x}]
`, []string{`test.yaml:4: unknown field "group" in a binding`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := policy.Parse("test.yaml", []byte(tt.yaml))
			if !errors.Is(err, policy.ErrInvalidPolicy) {
				t.Fatalf("Parse: %v, want ErrInvalidPolicy", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("missing %q in:\n%v", w, err)
				}
			}
		})
	}
}
