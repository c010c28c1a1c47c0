package main

import (
	"fmt"

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

// shape is a group's size: members, topics and partitions per topic.
type shape struct {
	members, topics int
	partitions      int32
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

// stormShape is the size of the i-th group of a storm: the small and
// middle sizes of a fleet, since a storm is many groups at once (a
// cluster roll), each on its own leader.
func stormShape(i int) shape {
	if i%20 == 19 {
		return shape{members: 20 + i%31, topics: 2, partitions: 60}
	}
	return fleetShape(i % 19)
}

// newStormGroup builds group id in steady state under cooperative-sticky
// (every member owns what the engine gave it), then lets one new member
// join, so that the answer moves partitions and withholds those still
// owned (KIP-429): the rebalance a rolling restart or a scale-out makes.
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
	g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("%s-consumer-new", id), Topics: topics, Generation: assign.NoGeneration})
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
