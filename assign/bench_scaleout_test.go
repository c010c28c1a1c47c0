package assign_test

import (
	"flag"
	"fmt"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
)

// scaleOutPeerMax is the largest N at which BenchmarkScaleOut also runs
// franz-go: the peer takes minutes at 10,000 members.
var scaleOutPeerMax = flag.Int("scaleout.peer-max", 2500, "largest member count at which BenchmarkScaleOut runs franz-go too")

// BenchmarkScaleOut is issue 10's burst scale-out: N members, all
// subscribed to t0 and, alternately, to t1 or t2 (three topics, 1,000,000
// partitions in total); member 0 owns 10·N partitions of t0 at generation
// 5, the others are new; COOPERATIVE. assignd's cooperative-sticky and
// franz-go's run on the same input in the same run (franz-go up to
// -scaleout.peer-max members), each reporting moved, imbalance and
// topicspread, and cpu-s/op, the process's CPU time per operation (the
// garbage collector's included). N=…/racks/assignd is assignd alone on the
// same group with three owners and racks: members in three zones, each
// partition's two replicas in two of them, so that each owner has no
// partition local to one zone's members; it runs assignd alone.
// Run: go test ./assign -run '^$' -bench ScaleOut -benchtime 1x
func BenchmarkScaleOut(b *testing.B) {
	for _, n := range []int{1000, 2500, 5000, 10000} {
		s := scaleOutScenario(n)
		b.Run(fmt.Sprintf("N=%d/assignd", n), func(b *testing.B) {
			b.ReportAllocs()
			var r *assign.Result
			cpu := processCPU()
			for b.Loop() {
				r = mustRun(s.group)
			}
			b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			reportQuality(b, s, assigndEncode(r))
		})
		b.Run(fmt.Sprintf("N=%d/racks/assignd", n), func(b *testing.B) {
			g := withRacks(scaleOut(n, 3, 10*n, 1000000))
			b.ResetTimer()
			var r *assign.Result
			cpu := processCPU()
			for b.Loop() {
				r = mustRun(g)
			}
			b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(r.Stats.Moved), "moved")
			b.ReportMetric(float64(len(r.Warnings)), "warnings")
		})
		if n > *scaleOutPeerMax {
			continue
		}
		b.Run(fmt.Sprintf("N=%d/franz-go", n), func(b *testing.B) {
			b.ReportAllocs()
			mb := peerMemberBalancer(b, s)
			var out map[string][]byte
			cpu := processCPU()
			for b.Loop() {
				into, err := mb.BalanceOrError(s.topics)
				if err != nil {
					b.Fatal(err)
				}
				out = peerEncode(into)
			}
			b.ReportMetric((processCPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			reportQuality(b, s, out)
		})
	}
}

// scaleOutScenario builds BenchmarkScaleOut's group of n members.
func scaleOutScenario(n int) *scenario {
	return newScenario(fmt.Sprintf("scale-out %d", n), scaleOut(n, 1, 10*n, 1000000))
}

// scaleOut is a scale-out of n members over t0, t1 and t2 (total
// partitions, a third each), every member subscribed to t0 and to t1 or t2
// by turns; members 0 to owners-1 own, at generation 5, owned partitions
// of t0 between them, the others are new.
func scaleOut(n, owners, owned, total int) *assign.Group {
	t1 := int32(total / 3)
	g := &assign.Group{Generation: 6, Protocol: assign.Cooperative, Topics: []assign.Topic{
		{Name: "t0", Partitions: int32(total) - 2*t1}, {Name: "t1", Partitions: t1}, {Name: "t2", Partitions: t1},
	}}
	for m := range n {
		mb := assign.Member{ID: fmt.Sprintf("member-%05d", m), Topics: []string{"t0", []string{"t1", "t2"}[m%2]}, Generation: assign.NoGeneration}
		if m < owners {
			var ps []int32
			for p := m; p < owned; p += owners {
				ps = append(ps, int32(p))
			}
			mb.Owned = []assign.TopicPartitions{{Topic: "t0", Partitions: ps}}
			mb.Generation = 5
			mb.UserData = wire.AppendCooperativeUserData(nil, 5)
		}
		g.Members = append(g.Members, mb)
	}
	return g
}

// withRacks puts member i in zone az(i mod 3) and partition p's replicas in
// zones p mod 3 and p+1 mod 3.
func withRacks(g *assign.Group) *assign.Group {
	zones := []string{"az0", "az1", "az2"}
	for i := range g.Topics {
		g.Topics[i].Racks = make([][]string, g.Topics[i].Partitions)
		for p := range g.Topics[i].Racks {
			g.Topics[i].Racks[p] = []string{zones[p%3], zones[(p+1)%3]}
		}
	}
	for i := range g.Members {
		g.Members[i].Rack = zones[i%3]
	}
	return g
}
