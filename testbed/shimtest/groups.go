package shimtest

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
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

// LongRangePartitions is the topic size of [LongRangeRequest]; a server
// needs its partition limit raised to it.
const LongRangePartitions = 20_000_000

// LongRangeRequest is a computation that takes seconds on any machine:
// range over one topic of [LongRangePartitions], 200 members. The request
// itself is a few kilobytes, so it reaches the handler at once.
func LongRangeRequest() *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{GroupId: "long-range", ProtocolName: "range",
		Topics: []*assigndv1.Topic{{Name: "t", PartitionCount: LongRangePartitions}}}
	for i := range 200 {
		req.Members = append(req.Members, &assigndv1.Member{MemberId: fmt.Sprintf("m%03d", i), Topics: []string{"t"}})
	}
	return req
}
