package assign_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

var kip848Assignors = []assign.Assignor{assign.KIP848Uniform(), assign.KIP848Range()}

// checkKIP848 runs a on g and on g with its members and topics reordered:
// both valid, and the same result, whatever order the request lists things
// in (the broker's answer depends on its hash orders; assignd's must not).
func checkKIP848(t *rapid.T, a assign.Assignor, g *assign.Group) *assign.Result {
	r := run(t, a, g, nil)
	h := assigntest.Edit(g).Build()
	h.Members = rapid.Permutation(h.Members).Draw(t, "member order")
	h.Topics = rapid.Permutation(h.Topics).Draw(t, "topic order")
	r2 := run(t, a, h, nil)
	for i := range r.Members {
		if !equalTPs(r.Members[i].Assigned, r2.Members[i].Assigned) || !equalTPs(r.Members[i].Revoked, r2.Members[i].Revoked) {
			t.Fatalf("%s: request order changed %s's result: %v vs %v", assign.Ref(a), r.Members[i].ID, r.Members[i].Assigned, r2.Members[i].Assigned)
		}
	}
	if !equalTPs(r.Pending, r2.Pending) {
		t.Fatalf("%s: request order changed pending: %v vs %v", assign.Ref(a), r.Pending, r2.Pending)
	}
	return r
}

// Random groups of every kind (stale and conflicting ownership, racks,
// missing topics, static members, either protocol): valid results that do
// not depend on the request's order.
func TestKIP848PropertyValidDeterministic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.SampledFrom([]assign.RebalanceProtocol{assign.Eager, assign.Cooperative}).Draw(t, "protocol")
		g := assigntest.GroupGen(assigntest.Protocol(p), assigntest.Owned(), assigntest.Conflicts(), assigntest.WithRacks(),
			assigntest.MissingTopics(), assigntest.StaticMembers(), assigntest.Members(0, 12)).Draw(t, "group")
		for _, a := range kip848Assignors {
			checkKIP848(t, a, g)
		}
	})
}

// kip848-range is range@1 without KIP-881: the same split on every group.
func TestKIP848PropertyRangeIsRangeWithoutRacks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.Protocol(assign.Eager), assigntest.Owned(), assigntest.WithRacks(),
			assigntest.MissingTopics(), assigntest.StaticMembers(), assigntest.Members(0, 12)).Draw(t, "group")
		r := run(t, assign.KIP848Range(), g, nil)
		want := run(t, assign.Range(), g, []assign.Option{assign.WithRackAware(false)})
		for i := range r.Members {
			if !equalTPs(r.Members[i].Assigned, want.Members[i].Assigned) {
				t.Fatalf("%s: kip848-range %v, range@1 without racks %v", r.Members[i].ID, r.Members[i].Assigned, want.Members[i].Assigned)
			}
		}
	})
}

// With equal subscriptions (the broker's homogeneous builder) uniform puts
// balance first and stickiness second: counts differ by at most one, and
// after a membership change every member keeps at least
// min(what it had, floor(P/n)) of its partitions (assigntest.Sticky), round
// after round.
func TestKIP848PropertyUniformHomogeneousBalancedSticky(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.Protocol(assign.Eager), assigntest.EqualSubscriptions(),
			assigntest.Members(1, 10), assigntest.Topics(1, 5), assigntest.Partitions(1, 24)).Draw(t, "group")
		a := assign.KIP848Uniform()
		r := run(t, a, g, nil, assigntest.Balanced())
		topics := g.Members[0].Topics
		for round := range 4 {
			next := assigntest.NextGroup(g, r)
			// EAGER members report nothing owned; carry the plan over as
			// owned, the broker's current assignment.
			assigned := make(map[string][]assign.TopicPartitions, len(r.Members))
			for _, m := range r.Members {
				assigned[m.ID] = m.Assigned
			}
			for i := range next.Members {
				next.Members[i].Owned = assigned[next.Members[i].ID]
			}
			b := assigntest.Edit(next)
			switch rapid.IntRange(0, 2).Draw(t, "change") {
			case 0:
				if len(next.Members) > 1 {
					b.Remove(next.Members[rapid.IntRange(0, len(next.Members)-1).Draw(t, "leaver")].ID)
				}
			case 1:
				b.Member(rapid.StringMatching(`j[a-z]{4}`).Draw(t, "joiner"), topics...)
			}
			g = b.Build()
			prev := r
			r = run(t, a, g, nil, assigntest.Balanced(), assigntest.Sticky(prev))
			if r.Stats.Imbalance > 1 {
				t.Fatalf("round %d: imbalance %d", round, r.Stats.Imbalance)
			}
		}
	})
}

// FuzzKIP848 feeds random groups (FuzzRun's, from the fuzzer's bytes) to
// both KIP-848 assignors: never a panic, a valid result or an InputError,
// and the same result whatever the request's order.
func FuzzKIP848(f *testing.F) {
	addFuzzRunSeeds(f)
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		g := fuzzRunGroup(t)
		for _, a := range kip848Assignors {
			if _, err := assign.Run(a, g); err != nil {
				continue // invalid input: TestRunRejectsBadInput's business
			}
			checkKIP848(t, a, g)
		}
	}))
}

// The heterogeneous builder's balancing is bounded (16 passes, moves only
// between subscribers of one topic at a time): on a chain of overlapping
// subscriptions where one member owns everything it spreads the load to
// every member, but need not end balanced, as the broker's does not.
func TestKIP848UniformChainBalances(t *testing.T) {
	b := assigntest.NewGroup().Protocol(assign.Eager)
	const n = 12
	for i := range n + 1 {
		b.Topic(topicName(i), 6)
	}
	for i := range n {
		id := memberName(i)
		b.Member(id, topicName(i), topicName(i+1))
		if i == 0 {
			for tp := range n + 1 {
				b.Owns(id, topicName(tp), 0, 1, 2, 3, 4, 5)
			}
		}
	}
	g := b.Build()
	g.Members[0].Topics = nil
	for tp := range n + 1 {
		g.Members[0].Topics = append(g.Members[0].Topics, topicName(tp))
	}
	r := run(t, assign.KIP848Uniform(), g, nil)
	counts := make([]int, len(r.Members))
	for i, m := range r.Members {
		for _, tp := range m.Assigned {
			counts[i] += len(tp.Partitions)
		}
	}
	if hi, lo := slices.Max(counts), slices.Min(counts); hi >= 6*(n+1) || lo == 0 {
		t.Errorf("counts %v: the load did not spread", counts)
	}
}
