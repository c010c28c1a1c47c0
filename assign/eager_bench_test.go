package assign_test

import (
	"fmt"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/assign"
)

// eagerBenchGroup is nTopics × nParts partitions and nMembers members;
// member m subscribes to topic t when sub(m, t). With racks, members and
// replicas spread over three racks, two replicas per partition.
func eagerBenchGroup(nTopics, nParts, nMembers int, sub func(m, t int) bool, racks bool) *assign.Group {
	az := []string{"az1", "az2", "az3"}
	g := &assign.Group{Generation: 1}
	names := make([]string, nTopics)
	for t := range nTopics {
		names[t] = fmt.Sprintf("topic-%03d", t)
		top := assign.Topic{Name: names[t], Partitions: int32(nParts)}
		if racks {
			top.Racks = make([][]string, nParts)
			for p := range nParts {
				top.Racks[p] = []string{az[(t+p)%3], az[(t+p+1)%3]}
			}
		}
		g.Topics = append(g.Topics, top)
	}
	for m := range nMembers {
		var topics []string
		for t := range nTopics {
			if sub == nil || sub(m, t) {
				topics = append(topics, names[t])
			}
		}
		mem := assign.Member{ID: fmt.Sprintf("member-%04d", m), Topics: topics, Generation: assign.NoGeneration}
		if racks {
			mem.Rack = az[m%3]
		}
		g.Members = append(g.Members, mem)
	}
	return g
}

// BenchmarkEager times range and roundrobin beside franz-go's balancers on
// the same groups (engine only: franz-go from MemberBalancer to
// IntoSyncAssignment, ours Run). Performance is not a target for these
// two; the benchmark keeps them honest about staying linear.
func BenchmarkEager(b *testing.B) {
	cases := []struct {
		name string
		g    func() *assign.Group
	}{
		{"A-1M-equal", func() *assign.Group { return eagerBenchGroup(500, 2000, 2000, nil, false) }},
		{"U-unequal", func() *assign.Group {
			return eagerBenchGroup(40, 200, 200, func(m, t int) bool { return (m+t)%3 != 0 }, false)
		}},
		{"R-racks", func() *assign.Group { return eagerBenchGroup(100, 100, 300, nil, true) }},
	}
	peers := []struct {
		ours   assign.Assignor
		theirs kgo.GroupBalancer
	}{
		{assign.Range(), kgo.RangeBalancer()},
		{assign.RoundRobin(), kgo.RoundRobinBalancer()},
	}
	for _, c := range cases {
		g := c.g()
		for _, peer := range peers {
			b.Run(c.name+"/"+peer.ours.Name()+"/assignd", func(b *testing.B) {
				b.ReportAllocs()
				var r *assign.Result
				for b.Loop() {
					var err error
					if r, err = assign.Run(peer.ours, g); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(r.Stats.Imbalance), "imbalance")
			})
			if c.name == "R-racks" {
				continue // franz-go has no KIP-881 range to compare with
			}
			b.Run(c.name+"/"+peer.ours.Name()+"/franz-go", func(b *testing.B) {
				members := franzMembers(g)
				topics := make(map[string]int32, len(g.Topics))
				for _, t := range g.Topics {
					topics[t.Name] = t.Partitions
				}
				b.ReportAllocs()
				for b.Loop() {
					mb, _, err := peer.theirs.MemberBalancer(members)
					if err != nil {
						b.Fatal(err)
					}
					into, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(topics)
					if err != nil {
						b.Fatal(err)
					}
					into.IntoSyncAssignment()
				}
			})
		}
	}
}
