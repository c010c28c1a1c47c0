package assign_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// fuzzRunGroup draws FuzzRun's group: any rebalance protocol, with stale,
// conflicting and rack-mismatched ownership, missing topics and static
// members.
func fuzzRunGroup(t *rapid.T) *assign.Group {
	p := rapid.SampledFrom([]assign.RebalanceProtocol{assign.ProtocolUnspecified, assign.Eager, assign.Cooperative}).Draw(t, "protocol")
	return assigntest.GroupGen(assigntest.Protocol(p), assigntest.Owned(), assigntest.Conflicts(), assigntest.WithRacks(),
		assigntest.MissingTopics(), assigntest.StaticMembers(), assigntest.Members(0, 8)).Draw(t, "group")
}

// fuzzRunSeeds are FuzzRun's seed inputs, so that every `go test` runs it on
// them. A rapid fuzz input is the bit stream the generators draw from, so
// each seed is a stream expanded from one number; TestFuzzRunSeeds checks
// that together they draw every rebalance protocol, with and without
// owned partitions, racks and static members, and an empty group.
var fuzzRunSeeds = []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}

// fuzzSeedInput expands seed into a fuzz input long enough for any group
// fuzzRunGroup draws (rapid skips an input it runs past the end of).
func fuzzSeedInput(seed uint64) []byte {
	return assigntest.FuzzInput(seed, 0x61737369676e64, 8*4096) // "assignd"
}

func addFuzzRunSeeds(f *testing.F) {
	for _, s := range fuzzRunSeeds {
		f.Add(fuzzSeedInput(s))
	}
}

func TestFuzzRunSeeds(t *testing.T) {
	protocols := map[assign.RebalanceProtocol]int{}
	var owned, racked, static, empty int
	for _, s := range fuzzRunSeeds {
		var g *assign.Group
		rapid.MakeFuzz(func(t *rapid.T) { g = fuzzRunGroup(t) })(t, fuzzSeedInput(s))
		if g == nil {
			t.Fatalf("seed %d draws no group", s)
		}
		protocols[g.Protocol]++
		if len(g.Members) == 0 {
			empty++
		}
		var o, r, st bool
		for _, m := range g.Members {
			o = o || len(m.Owned) > 0
			r = r || m.Rack != ""
			st = st || m.InstanceID != ""
		}
		owned, racked, static = owned+b2i(o), racked+b2i(r), static+b2i(st)
	}
	t.Logf("protocols %v; groups with owned partitions %d, racks %d, static members %d, empty %d", protocols, owned, racked, static, empty)
	for _, p := range []assign.RebalanceProtocol{assign.ProtocolUnspecified, assign.Eager, assign.Cooperative} {
		if protocols[p] < 2 {
			t.Errorf("%d seeds draw a %v group, want at least 2", protocols[p], p)
		}
	}
	n := len(fuzzRunSeeds)
	for what, c := range map[string]int{"owned partitions": owned, "racks": racked, "static members": static} {
		if c == 0 || c == n {
			t.Errorf("%d of %d seeds draw a group with %s, want some but not all", c, n, what)
		}
	}
	if empty == 0 {
		t.Error("no seed draws a group without members")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
