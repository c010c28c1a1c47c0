package main

import (
	"fmt"
	"math"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// stormGroup is one group of a storm: its request (raw subscriptions,
// ASSIGNMENT_VIEW_ENCODED, as the shims send) and what an answer is
// checked against.
type stormGroup struct {
	req *assigndv1.AssignRequest
	g   *assign.Group
}

// shape is a group's size: members, topics and partitions per topic,
// and the event that makes it rebalance.
type shape struct {
	members, topics int
	partitions      int32
	leave           bool // one member leaves (its partitions are unowned); otherwise one joins
}

// fleetShape is the size of the i-th group of a fleet: mostly small
// groups (a service and its few instances), some of tens of members,
// and one in twenty with a hundred or more over thousands of partitions,
// as a shared cluster's groups are spread.
func fleetShape(i int) shape {
	switch {
	case i%20 == 19:
		return shape{members: 100 + i%101, topics: 4, partitions: 500}
	case i%20 >= 16:
		return shape{members: 20 + i%31, topics: 1 + i%5, partitions: 120}
	}
	return shape{members: 3 + i%8, topics: 1 + i%3, partitions: int32(12 + (i%5)*12)}
}

// stormShape is the size of the i-th group of a storm, as issue 28
// describes the day: 3 to 60 members over up to 2,000 partitions, and one
// group in 200 (0.5%) a big one of 20,000 to 100,000 partitions; every
// other group has a member leaving, the rest one joining. Members and
// partitions are spread log-uniformly, as a fleet's sizes are (many small
// groups, few large), by a fixed hash of i, so that every run has the
// same groups.
func stormShape(i int) shape {
	h := uint64(i+1) * 0x9E3779B97F4A7C15 // Fibonacci hashing: a fixed spread
	u := func(shift uint) float64 { return float64((h>>shift)&0xffff) / 0x10000 }
	logUniform := func(lo, hi float64, shift uint) int { return int(math.Round(lo * math.Pow(hi/lo, u(shift)))) }
	leave := i%2 == 1
	members := logUniform(3, 60, 16)
	if i%200 == 199 {
		// 10–50 topics of 2,000 partitions: 20,000 to 100,000.
		return shape{members: max(members, 20), topics: 10 + int(h>>32)%41, partitions: 2000, leave: leave}
	}
	topics := 1 + int(h>>32)%5
	total := logUniform(float64(topics), 2000, 48)
	return shape{members: members, topics: topics, partitions: int32(max(1, total/topics)), leave: leave}
}

// newStormGroup builds group id in steady state under cooperative-sticky
// (every member owns what the engine gave it), then lets one new member
// join, or the last one leave, so that the answer moves partitions and
// withholds those still owned (KIP-429): the rebalance a rolling restart,
// a scale-out or a crash makes.
func newStormGroup(id string, s shape, generation int32) (*stormGroup, error) {
	g := &assign.Group{Generation: generation - 1, Protocol: assign.Cooperative}
	topics := make([]string, s.topics)
	for t := range topics {
		topics[t] = fmt.Sprintf("%s-topic-%d", id, t)
		g.Topics = append(g.Topics, assign.Topic{Name: topics[t], Partitions: s.partitions})
	}
	for m := range s.members {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("%s-consumer-%03d", id, m), Topics: topics, Generation: assign.NoGeneration})
	}
	prev, err := assign.Run(assign.CooperativeSticky(), g)
	if err != nil {
		return nil, err
	}
	for i, m := range prev.Members {
		g.Members[i].Owned = m.Assigned
		g.Members[i].Generation = generation - 1
	}
	g.Generation = generation
	if s.leave && len(g.Members) > 1 {
		g.Members = g.Members[:len(g.Members)-1]
	} else {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("%s-consumer-new", id), Topics: topics, Generation: assign.NoGeneration})
	}
	req := request(g, "cooperative-sticky")
	req.GroupId = id
	req.View = assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED
	return &stormGroup{req: req, g: g}, nil
}

// stormGroups builds n groups named with prefix, sized by shapeOf.
func stormGroups(prefix string, n int, shapeOf func(int) shape) ([]*stormGroup, error) {
	out := make([]*stormGroup, n)
	for i := range out {
		sg, err := newStormGroup(fmt.Sprintf("%s-%05d", prefix, i), shapeOf(i), 8)
		if err != nil {
			return nil, err
		}
		out[i] = sg
	}
	return out, nil
}
