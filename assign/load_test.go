package assign_test

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// memberLoads sums, per member id, the weights of what r assigns it.
func memberLoads(g *assign.Group, r *assign.Result) map[string]float64 {
	w := weightOf(g)
	out := make(map[string]float64, len(r.Members))
	for _, ma := range r.Members {
		out[ma.ID] = 0
		for _, tp := range ma.Assigned {
			for _, p := range tp.Partitions {
				out[ma.ID] += w(tp.Topic, p)
			}
		}
	}
	return out
}

// weightOf returns the weight of a partition as the engine fills it in:
// the given weight, else the topic's mean, else the mean of all weights.
func weightOf(g *assign.Group) func(topic string, p int32) float64 {
	given := map[string][]float64{}
	sum, n := 0.0, 0
	for _, tw := range g.Weights {
		given[tw.Topic] = tw.Weights
		for _, w := range tw.Weights {
			sum += w
			n++
		}
	}
	all := 1.0
	if n > 0 {
		all = sum / float64(n)
	}
	return func(topic string, p int32) float64 {
		ws := given[topic]
		if int(p) < len(ws) {
			return ws[p]
		}
		if len(ws) == 0 {
			return all
		}
		s := 0.0
		for _, w := range ws {
			s += w
		}
		return s / float64(len(ws))
	}
}

// One hot partition among idle ones: count balance gives its member the
// hot one and as many idle ones as anybody; load balance leaves that member
// the hot one alone (within the count cap) and spreads the rest.
func TestLoadStickyHotPartition(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 12).Member("a", "t").Member("b", "t").Member("c", "t").Build()
	ws := make([]float64, 12)
	for i := range ws {
		ws[i] = 1
	}
	ws[0] = 10
	g.Weights = []assign.TopicWeights{{Topic: "t", Weights: ws}}
	for _, tc := range []struct {
		a       assign.Assignor
		wantMax float64
	}{
		{assign.CooperativeSticky(), 13},
		{assign.LoadSticky(), 10},
	} {
		r, err := assign.Run(tc.a, g)
		if err != nil {
			t.Fatal(err)
		}
		if err := assigntest.Check(g, r); err != nil {
			t.Fatal(err)
		}
		hi := 0.0
		for _, l := range memberLoads(g, r) {
			hi = max(hi, l)
		}
		if hi != tc.wantMax {
			t.Errorf("%s: largest load %v, want %v", assign.Ref(tc.a), hi, tc.wantMax)
		}
	}
}

// Without weights, load-sticky plans by counts exactly as
// cooperative-sticky@1 does.
func TestLoadStickyWithoutWeightsIsCooperativeSticky(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 10).Topic("u", 3).
		Member("a", "t", "u").Owns("a", "t", 0, 1, 2, 3, 4, 5, 6).Gen("a", 1).
		Member("b", "t").Member("c", "t", "u").Generation(2).Build()
	want, err := assign.Run(assign.CooperativeSticky(), g)
	if err != nil {
		t.Fatal(err)
	}
	got, err := assign.Run(assign.LoadSticky(), g)
	if err != nil {
		t.Fatal(err)
	}
	got.Assignor, got.Version = want.Assignor, want.Version
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if got.Load != nil {
		t.Fatalf("load stats without weights: %+v", got.Load)
	}
}

// Invalid weights are refused by every assignor, naming the field.
func TestWeightsRejected(t *testing.T) {
	base := assigntest.NewGroup().Topic("t", 3).Topic("u", 1).Member("a", "t").Build()
	for _, tc := range []struct {
		name    string
		weights []assign.TopicWeights
		field   string
	}{
		{"negative", []assign.TopicWeights{{Topic: "t", Weights: []float64{1, -1}}}, "partition_weights[0].weights[1]"},
		{"NaN", []assign.TopicWeights{{Topic: "u", Weights: []float64{1}}, {Topic: "t", Weights: []float64{math.NaN()}}}, "partition_weights[1].weights[0]"},
		{"infinite", []assign.TopicWeights{{Topic: "t", Weights: []float64{math.Inf(1)}}}, "partition_weights[0].weights[0]"},
		{"unknown topic", []assign.TopicWeights{{Topic: "nope", Weights: []float64{1}}}, "partition_weights[0].topic"},
		{"too many", []assign.TopicWeights{{Topic: "u", Weights: []float64{1, 2}}}, "partition_weights[0].weights"},
		{"twice", []assign.TopicWeights{{Topic: "t"}, {Topic: "t"}}, "partition_weights[1].topic"},
		{"overflow", []assign.TopicWeights{{Topic: "t", Weights: []float64{math.MaxFloat64, math.MaxFloat64}}}, "partition_weights"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := assigntest.Edit(base).Build()
			g.Weights = tc.weights
			for _, a := range assign.Assignors() {
				_, err := assign.Run(a, g)
				var ie *assign.InputError
				if !errors.As(err, &ie) || !errors.Is(err, assign.ErrInvalidGroup) || ie.Field != tc.field {
					t.Fatalf("%s: got %v, want an invalid-group error on %s", assign.Ref(a), err, tc.field)
				}
				if ie.Reason == "" {
					t.Fatalf("%s: reason %q", assign.Ref(a), ie.Reason)
				}
			}
		})
	}
}

// Partitions without a weight get their topic's mean, or the mean of all
// weights for a topic without any.
func TestWeightsDefault(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 4).Topic("u", 2).Member("a", "t", "u").Build()
	g.Weights = []assign.TopicWeights{{Topic: "t", Weights: []float64{2, 4}}}
	r, err := assign.Run(assign.LoadSticky(), g)
	if err != nil {
		t.Fatal(err)
	}
	// t: 2 + 4 + 3 + 3; u: 2 × 3 (the mean of all given weights).
	if r.Load == nil || r.Load.Total != 18 || r.Load.Max != 18 || r.Load.Bound != 18 {
		t.Fatalf("load stats %+v, want total, max and bound 18", r.Load)
	}
}

// The snapshot names the weights as planned: the same for weights given in
// full or left to the defaults, different when one weight changes.
func TestLoadSnapshot(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 3).Member("a", "t").Build()
	run := func(ws ...float64) string {
		h := assigntest.Edit(g).Build()
		h.Weights = []assign.TopicWeights{{Topic: "t", Weights: ws}}
		r, err := assign.Run(assign.LoadSticky(), h)
		if err != nil {
			t.Fatal(err)
		}
		return r.Load.Snapshot
	}
	full, short, other := run(2, 4, 3), run(2, 4), run(2, 4, 3.5)
	if full != short || full == other || len(full) != len("sha256:")+16 {
		t.Fatalf("snapshots %q, %q, %q", full, short, other)
	}
}

// Extreme knobs are safe: a skew beyond any partition count, a tolerance
// and hysteresis of zero or huge values, weights all zero.
func TestLoadStickyExtremeKnobs(t *testing.T) {
	g := assigntest.NewGroup().Topic("t", 7).Member("a", "t").Member("b", "t").Member("c", "t").Owns("a", "t", 0, 1, 2, 3, 4, 5, 6).Gen("a", 1).Generation(2).Build()
	for _, ws := range [][]float64{{0, 0, 0, 0, 0, 0, 0}, {50, 1, 1, 1, 1, 1, 1}} {
		g.Weights = []assign.TopicWeights{{Topic: "t", Weights: ws}}
		for _, opts := range [][]assign.Option{
			{assign.WithMaxCountSkew(math.MaxInt)},
			{assign.WithLoadTolerance(0), assign.WithLoadHysteresis(0)},
			{assign.WithLoadTolerance(1e300), assign.WithLoadHysteresis(1e300)},
			{assign.WithLoadTolerance(math.NaN()), assign.WithMaxCountSkew(1)},
		} {
			r, err := assign.Run(assign.LoadSticky(), g, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if err := assigntest.Check(g, r); err != nil {
				t.Fatalf("weights %v: %v", ws, err)
			}
		}
	}
}
