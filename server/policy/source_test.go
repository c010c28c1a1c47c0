package policy_test

import (
	"context"
	"errors"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/policytest"
)

const sourcePolicy = `version: 1
rules:
  - name: capped
    match: {group_prefixes: [capped-], protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    params: {max_moves_per_rebalance: 1, rack_aware: false}
  - name: eager-rr
    match: {protocols: [range]}
    assignor: roundrobin@1
`

func TestSourceSelect(t *testing.T) {
	m := newMeter(t)
	p := mustParse(t, sourcePolicy)
	src := policytest.ServePolicy(t, p, policy.WithMeterProvider(m.provider))
	var _ selection.Selector = src
	ctx := context.Background()

	tests := []struct {
		query    selection.Query
		policy   string
		assignor string
	}{
		{selection.Query{GroupID: "capped-1", ProtocolName: "cooperative-sticky", Protocol: assign.Cooperative}, "capped/", "cooperative-sticky@1"},
		{selection.Query{GroupID: "capped-1", ProtocolName: "range"}, "eager-rr/", "roundrobin@1"},
		{selection.Query{GroupID: "other", ProtocolName: "cooperative-sticky"}, "default/", "cooperative-sticky@1"},
		{selection.Query{GroupID: "other", ProtocolName: "sticky", Protocol: assign.Eager}, "default/", "sticky@1"},
	}
	for _, tt := range tests {
		sel, err := src.Select(ctx, tt.query)
		if err != nil {
			t.Fatalf("%+v: %v", tt.query, err)
		}
		if sel.Policy != tt.policy+p.Revision() || assign.Ref(sel.Assignor) != tt.assignor {
			t.Errorf("%+v: chose %s by %s, want %s by %s%s", tt.query, assign.Ref(sel.Assignor), sel.Policy, tt.assignor, tt.policy, p.Revision())
		}
		if sel.Observe != nil {
			t.Errorf("%+v: Observe set for a rule without shadow", tt.query)
		}
	}
	if _, err := src.Select(ctx, selection.Query{GroupID: "g", ProtocolName: "nope"}); !errors.Is(err, selection.ErrUnknownProtocol) {
		t.Errorf("unknown name: %v", err)
	}

	// The options are the rule's: the cap lets one partition move.
	g := assigntest.NewGroup().Protocol(assign.Cooperative).Topic("t", 8).
		Member("a", "t").Owns("a", "t", 0, 1, 2, 3, 4, 5, 6, 7).Gen("a", 1).Member("b", "t").Generation(2).Build()
	sel, _ := src.Select(ctx, tests[0].query)
	r := runSelected(t, sel, g)
	if err := assigntest.Check(g, r); err != nil {
		t.Fatal(err)
	}
	if r.Stats.Moved != 1 || r.Stats.Pending != 1 {
		t.Errorf("moved %d pending %d, want the cap of 1", r.Stats.Moved, r.Stats.Pending)
	}

	rev := map[string]string{"revision": p.Revision()}
	if n, _ := m.value(t, "assignd.policy.selections", map[string]string{"rule": "capped", "revision": p.Revision(), "assignor": "cooperative-sticky@1"}); n != 2 {
		t.Errorf("selections{capped} = %d, want 2", n)
	}
	if n, _ := m.value(t, "assignd.policy.selections", map[string]string{"rule": "default", "assignor": "sticky@1"}); n != 1 {
		t.Errorf("selections{default, sticky@1} = %d, want 1", n)
	}
	if n, ok := m.value(t, "assignd.policy.revision", rev); !ok || n != 1 {
		t.Errorf("revision gauge = %d (%t), want 1 for %s", n, ok, p.Revision())
	}
	if n, ok := m.value(t, "assignd.policy.reload.rejected", nil); !ok || n != 0 {
		t.Errorf("rejected gauge = %d (%t), want 0", n, ok)
	}
}

func TestNewSourceDefaultsToDefaultPolicy(t *testing.T) {
	src := policytest.ServePolicy(t, nil, policy.WithMeterProvider(newMeter(t).provider))
	if src.Policy() != policy.Default() {
		t.Fatal("NewSource(nil) does not serve Default()")
	}
	if err := src.Reload(context.Background()); err == nil {
		t.Error("Reload on a fixed source should fail")
	}
	e, err := src.Explain("g", "range", selection.Caller{})
	if err != nil || e.Assignor != "range@1" || e.Policy != "default/"+policy.Default().Revision() {
		t.Errorf("Explain = %+v, %v", e, err)
	}
	if err := src.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
