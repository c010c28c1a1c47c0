package assign_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// zipfWeights gives a group's partitions Zipf-distributed rates (the
// partition of rank k carries 1/k^s of the hottest one's, s = 0.8, so
// that the hottest of 512 partitions carries 5% of the total and the
// hottest of 20,000 3%), the
// ranks shuffled over the partitions by seed.
func zipfWeights(g *assign.Group, seed uint64) []assign.TopicWeights {
	total := 0
	for _, t := range g.Topics {
		total += int(t.Partitions)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	ranks := rng.Perm(total)
	out := make([]assign.TopicWeights, len(g.Topics))
	i := 0
	for ti, t := range g.Topics {
		out[ti] = assign.TopicWeights{Topic: t.Name, Weights: make([]float64, t.Partitions)}
		for p := range out[ti].Weights {
			out[ti].Weights[p] = 1e6 / math.Pow(float64(ranks[i]+1), zipfS)
			i++
		}
	}
	return out
}

const zipfS = 0.8

// loadGroup is an EAGER group of members members subscribing to topics
// topics of partitions partitions each, so that the whole plan is in the
// result (under COOPERATIVE the post-pass only withholds).
func loadGroup(members, topics int, partitions int32) *assign.Group {
	b := assigntest.NewGroup().Protocol(assign.Eager)
	var names []string
	for t := range topics {
		names = append(names, fmt.Sprintf("t%02d", t))
		b.Topic(names[t], partitions)
	}
	for m := range members {
		b.Member(fmt.Sprintf("m%04d", m), names...)
	}
	return b.Build()
}

// steady returns the group after a, run on g, was installed and run again
// until it moves nothing (at most 4 rounds).
func steady(b *testing.B, a assign.Assignor, g *assign.Group) *assign.Group {
	for range 4 {
		r, err := assign.Run(a, g)
		if err != nil {
			b.Fatal(err)
		}
		next := assigntest.NextGroup(g, r)
		next.Weights = g.Weights
		g = next
		if r.Stats.Moved == 0 {
			break
		}
	}
	return g
}

// BenchmarkLoadSticky compares load-sticky@1 with the count-based
// cooperative-sticky@1, its peer, in the same run, on Zipf-distributed
// partition rates. Scenarios: fresh (nobody owns anything), join (a steady
// group gains a member), shift (a steady group's hot spots move: the same
// rates, shuffled again). Each reports maxload/mean (the most loaded
// member over the mean member load), maxload/bound (over the lower bound,
// the larger of the mean and the heaviest partition: 1 is perfect), moved (partitions
// taken from their owners) and partitions/member (the most partitions a
// member holds) beside the time.
// Run: go test ./assign -run '^$' -bench LoadSticky -count 5
func BenchmarkLoadSticky(b *testing.B) {
	sizes := []struct {
		name                  string
		members, topics, part int
	}{
		{"M10xP512", 10, 4, 128},
		{"M40xP20k", 40, 10, 2000},
	}
	peers := []assign.Assignor{assign.CooperativeSticky(), assign.LoadSticky()}
	for _, sz := range sizes {
		base := loadGroup(sz.members, sz.topics, int32(sz.part))
		base.Weights = zipfWeights(base, 1)
		for _, a := range peers {
			st := steady(b, a, base)
			joined := assigntest.Edit(st).Member("m9999", st.Members[0].Topics...).Build()
			joined.Weights = st.Weights
			shifted := assigntest.Edit(st).Build()
			shifted.Weights = zipfWeights(shifted, 2)
			for _, sc := range []struct {
				name string
				g    *assign.Group
			}{{"fresh", base}, {"join", joined}, {"shift", shifted}} {
				b.Run(fmt.Sprintf("%s/%s/%s", sz.name, sc.name, assign.Ref(a)), func(b *testing.B) {
					var r *assign.Result
					for b.Loop() {
						var err error
						if r, err = assign.Run(a, sc.g); err != nil {
							b.Fatal(err)
						}
					}
					reportLoad(b, sc.g, r)
				})
			}
		}
	}
}

func reportLoad(b *testing.B, g *assign.Group, r *assign.Result) {
	loads := memberLoads(g, r)
	hi, total := 0.0, 0.0
	for _, l := range loads {
		hi = max(hi, l)
		total += l
	}
	most := 0
	for _, ma := range r.Members {
		n := 0
		for _, tp := range ma.Assigned {
			n += len(tp.Partitions)
		}
		most = max(most, n)
	}
	b.ReportMetric(hi/(total/float64(len(loads))), "maxload/mean")
	b.ReportMetric(hi/bound(g, total), "maxload/bound")
	b.ReportMetric(float64(r.Stats.Moved), "moved")
	b.ReportMetric(float64(most), "partitions/member")
}

// bound is the lower bound of the largest member load of an
// equal-subscription group: the mean member load or the heaviest
// partition.
func bound(g *assign.Group, total float64) float64 {
	heaviest := 0.0
	for _, tw := range g.Weights {
		for _, w := range tw.Weights {
			heaviest = max(heaviest, w)
		}
	}
	return max(total/float64(len(g.Members)), heaviest)
}
