package policy_test

import (
	"context"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/policytest"
)

// A classic group can run the broker's KIP-848 algorithm before it
// migrates: a rule puts each classic protocol name behind the server-side
// assignor Kafka maps it to (range → range; roundrobin, sticky and
// cooperative-sticky → uniform), and each group still gets the rebalance
// protocol its clients run.
func TestKIP848AssignorsServeClassicNames(t *testing.T) {
	p := mustParse(t, `version: 1
rules:
  - name: preview-range
    match: {group_prefixes: [migrating-], protocols: [range]}
    assignor: kip848-range@1
  - name: preview-uniform
    match: {group_prefixes: [migrating-], protocols: [roundrobin, sticky, cooperative-sticky]}
    assignor: kip848-uniform@1
  - name: default
    assignor: standard
`)
	src := policytest.ServePolicy(t, p, policy.WithMeterProvider(newMeter(t).provider))
	tests := []struct {
		name     string
		assignor string
		protocol assign.RebalanceProtocol
	}{
		{"range", "kip848-range@1", assign.Eager},
		{"roundrobin", "kip848-uniform@1", assign.Eager},
		{"sticky", "kip848-uniform@1", assign.Eager},
		{"cooperative-sticky", "kip848-uniform@1", assign.Cooperative},
	}
	for _, tt := range tests {
		sel, err := src.Select(context.Background(), selection.Query{GroupID: "migrating-orders", ProtocolName: tt.name})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if got := assign.Ref(sel.Assignor); got != tt.assignor {
			t.Errorf("%s: runs %s, want %s", tt.name, got, tt.assignor)
		}
		g := assigntest.NewGroup().Topic("t", 4).Member("a", "t").Member("b", "t").Build()
		g.Protocol = sel.Protocol
		r, err := assign.Run(sel.Assignor, g, sel.Options...)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if r.Protocol != tt.protocol {
			t.Errorf("%s: ran %v, want %v", tt.name, r.Protocol, tt.protocol)
		}
		if err := assigntest.Check(g, r, assigntest.Balanced()); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		other, err := src.Select(context.Background(), selection.Query{GroupID: "orders", ProtocolName: tt.name})
		if err != nil || other.Assignor.Name() != tt.name {
			t.Errorf("%s: a group outside the prefix runs %v (%v), want the standard assignor", tt.name, other.Assignor, err)
		}
	}
}
