package server

import (
	"testing"

	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

// TestParamsOptionsMatchPolicy: the replays turn a rule's parameters into
// engine options as the policy does; a parameter the policy passes and
// paramsOptions does not would make a preview differ from what serves.
func TestParamsOptionsMatchPolicy(t *testing.T) {
	p, err := policy.Parse("p.yaml", []byte(`version: 1
rules:
  - name: all
    assignor: cooperative-sticky@1
    params: {rack_aware: false, max_moves_per_rebalance: 3, freeze: true, keep_misaligned_racks: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	sel, err := p.Select(selection.Query{GroupID: "g", ProtocolName: "cooperative-sticky"})
	if err != nil {
		t.Fatal(err)
	}
	exp, err := p.Explain("g", "cooperative-sticky", selection.Caller{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(paramsOptions(exp.Params)), len(sel.Options); got != want {
		t.Errorf("paramsOptions gives %d options, the policy %d", got, want)
	}
	if want := (PolicyParams{MaxMovesPerRebalance: 3, Freeze: true, KeepMisalignedRacks: true}); exp.Params != want {
		t.Errorf("params %+v, want %+v", exp.Params, want)
	}
}
