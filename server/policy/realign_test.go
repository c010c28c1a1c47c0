package policy_test

import (
	"context"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/policytest"
)

// params.keep_misaligned_racks reaches the engine: by default a balanced
// group whose partitions are all off their owners' racks trades them
// (KIP-881 realignment); a rule that keeps them moves nothing, and its
// parameters say so.
func TestKeepMisalignedRacksParam(t *testing.T) {
	p := mustParse(t, `version: 1
rules:
  - name: keep
    match: {group_prefixes: [keep-]}
    assignor: cooperative-sticky@1
    params: {keep_misaligned_racks: true}
`)
	src := policytest.ServePolicy(t, p, policy.WithMeterProvider(newMeter(t).provider))
	r1, r2 := []string{"r1"}, []string{"r2"}
	g := assigntest.NewGroup().Generation(3).Protocol(assign.Cooperative).Topic("t", 4).Racks("t", r1, r1, r2, r2).
		Member("a", "t").Rack("a", "r1").Owns("a", "t", 2, 3).Gen("a", 2).
		Member("b", "t").Rack("b", "r2").Owns("b", "t", 0, 1).Gen("b", 2).Build()
	for _, tc := range []struct {
		group string
		moved int
	}{{"keep-orders", 0}, {"orders", 4}} {
		sel, err := src.Select(context.Background(), selection.Query{GroupID: tc.group, ProtocolName: "cooperative-sticky", Protocol: assign.Cooperative})
		if err != nil {
			t.Fatal(err)
		}
		r := runSelected(t, sel, g)
		if r.Stats.Moved != tc.moved {
			t.Errorf("%s: moved %d, want %d", tc.group, r.Stats.Moved, tc.moved)
		}
		e, err := src.ExplainPolicy(context.Background(), selection.Query{GroupID: tc.group, ProtocolName: "cooperative-sticky", Protocol: assign.Cooperative})
		if err != nil {
			t.Fatal(err)
		}
		if keep := tc.moved == 0; e.Params.KeepMisalignedRacks != keep || strings.Contains(e.Params.String(), "keep_misaligned_racks=true") != keep {
			t.Errorf("%s: params %+v (%s)", tc.group, e.Params, e.Params)
		}
	}
}
