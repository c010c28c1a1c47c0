package policy_test

import (
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/server/selection"
)

// A rule's load-aware parameters reach the engine: with a tolerance of
// 0.5 and no hysteresis, a plan whose largest load is 40% over the bound
// moves nothing; with the defaults it moves a partition.
func TestLoadParamsReachTheEngine(t *testing.T) {
	p := mustParse(t, `version: 1
rules:
  - name: loose
    match: {group_prefixes: [loose-]}
    assignor: load-sticky@1
    params: {load_tolerance: 0.5, load_hysteresis: 0, max_count_skew: 2, load_source: kafka}
  - name: tight
    match: {group_prefixes: [tight-]}
    assignor: load-sticky@1
`)
	// a carries 7, b 3: the bound is 5, a is 40% over it.
	g := assigntest.NewGroup().Protocol(assign.Eager).Topic("t", 4).Member("a", "t").Member("b", "t").
		Owns("a", "t", 0, 1).Owns("b", "t", 2, 3).Build()
	g.Weights = []assign.TopicWeights{{Topic: "t", Weights: []float64{5, 2, 2, 1}}}
	for _, tc := range []struct {
		group string
		moved int
	}{{"loose-1", 0}, {"tight-1", 1}} {
		sel, err := p.Select(selection.Query{GroupID: tc.group, ProtocolName: assign.NameCooperativeSticky})
		if err != nil {
			t.Fatal(err)
		}
		r := runSelected(t, sel, g)
		if r.Stats.Moved != tc.moved {
			t.Errorf("%s: moved %d, want %d", tc.group, r.Stats.Moved, tc.moved)
		}
		if sel.KafkaLoad != (tc.group == "loose-1") {
			t.Errorf("%s: KafkaLoad %t", tc.group, sel.KafkaLoad)
		}
	}
	e, err := p.Explain("loose-1", assign.NameCooperativeSticky, selection.Caller{})
	if err != nil {
		t.Fatal(err)
	}
	if e.Params.LoadTolerance != 0.5 || e.Params.LoadHysteresis != 0 || e.Params.MaxCountSkew != 2 || e.Params.LoadSource != "kafka" {
		t.Errorf("explained params %+v", e.Params)
	}
}
