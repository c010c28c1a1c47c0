package shimtest

import (
	"fmt"

	"github.com/assignd/assignd/assign"
)

// ScaleOutGroup is a burst scale-out of a cooperative group, from one
// consumer to n: every member subscribes to t0 and to one of t1 and t2
// (1,000,000 partitions in all); member 0 owns 10·n partitions of t0 at
// generation 5, the others are new. Planning it takes the engine's repair,
// the longest path it has, so it is the input that shows whether a bound
// on the engine holds.
func ScaleOutGroup(n int) *assign.Group {
	g := &assign.Group{Generation: 6, Protocol: assign.Cooperative, Topics: []assign.Topic{
		{Name: "t0", Partitions: 400_000}, {Name: "t1", Partitions: 300_000}, {Name: "t2", Partitions: 300_000},
	}}
	owned := make([]int32, min(10*n, 400_000))
	for p := range owned {
		owned[p] = int32(p)
	}
	for i := range n {
		m := assign.Member{ID: fmt.Sprintf("m%05d", i), Topics: []string{"t0", []string{"t1", "t2"}[i%2]}}
		if i == 0 {
			m.Generation = 5
			m.Owned = []assign.TopicPartitions{{Topic: "t0", Partitions: owned}}
		}
		g.Members = append(g.Members, m)
	}
	return g
}
