package main

import (
	"fmt"

	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// smallRequest is a 10-member cooperative-sticky group on 3 topics of 32
// partitions in steady state: each member's v3 subscription reports
// owning what the engine gave it in the previous generation, as a live
// group's rebalance would.
func smallRequest() (*assigndv1.AssignRequest, error) {
	g := &assign.Group{Generation: 7, Protocol: assign.Cooperative}
	topics := []string{"clicks", "orders", "payments"}
	for _, t := range topics {
		g.Topics = append(g.Topics, assign.Topic{Name: t, Partitions: 32})
	}
	for i := range 10 {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("consumer-%02d", i), Topics: topics, Generation: assign.NoGeneration})
	}
	prev, err := assign.Run(assign.CooperativeSticky(), g)
	if err != nil {
		return nil, err
	}
	for i, m := range prev.Members {
		// prev.Members is sorted by id, as g.Members is.
		g.Members[i].Owned = m.Assigned
		g.Members[i].Generation = 6
	}
	return request(g, "cooperative-sticky"), nil
}

// bigRequest is the engine issue's case A (caseA) as a Java leader
// forwards it.
func bigRequest() (*assigndv1.AssignRequest, error) {
	g, _ := caseA()
	return request(g, "cooperative-sticky"), nil
}

// caseA is the engine issue's case A: 500 topics × 2,000 partitions,
// 2,000 members subscribing to every topic, nobody owning anything yet;
// topics are the topic names.
func caseA() (g *assign.Group, topics []string) {
	g = &assign.Group{Generation: 1, Protocol: assign.Cooperative}
	topics = make([]string, 500)
	for i := range topics {
		topics[i] = fmt.Sprintf("topic-%03d", i)
		g.Topics = append(g.Topics, assign.Topic{Name: topics[i], Partitions: 2000})
	}
	for i := range 2000 {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("consumer-%04d", i), Topics: topics, Generation: assign.NoGeneration})
	}
	return g, topics
}

// request encodes every member as a raw v3 ConsumerProtocolSubscription,
// as a leader forwards them from its JoinGroup response.
func request(g *assign.Group, protocolName string) *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{
		GroupId: "bench", GenerationId: g.Generation, ProtocolName: protocolName,
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
	}
	for _, t := range g.Topics {
		req.Topics = append(req.Topics, &assigndv1.Topic{Name: t.Name, PartitionCount: t.Partitions})
	}
	for _, m := range g.Members {
		meta := wire.AppendSubscription(nil, &wire.Subscription{
			Version: 3, Topics: m.Topics, Owned: m.Owned, Generation: m.Generation,
			UserData: wire.AppendCooperativeUserData(nil, m.Generation),
		})
		req.Members = append(req.Members, &assigndv1.Member{MemberId: m.ID, Metadata: meta})
	}
	return req
}

// cloneWithView is req asking for the given view.
func cloneWithView(req *assigndv1.AssignRequest, v assigndv1.AssignmentView) *assigndv1.AssignRequest {
	out := proto.CloneOf(req)
	out.View = v
	return out
}
