package assign_test

import (
	"fmt"

	"github.com/assignd/assignd/assign"
)

// A first assignment: cooperative-sticky deals partitions round-robin in
// (topic, partition) order over the members in id order.
func ExampleRun() {
	g := &assign.Group{
		Generation: 1,
		Topics:     []assign.Topic{{Name: "orders", Partitions: 3}, {Name: "payments", Partitions: 3}},
		Members: []assign.Member{
			{ID: "consumer-b", Topics: []string{"orders", "payments"}, Generation: assign.NoGeneration},
			{ID: "consumer-a", Topics: []string{"orders", "payments"}, Generation: assign.NoGeneration},
		},
	}
	r, err := assign.Run(assign.CooperativeSticky(), g)
	if err != nil {
		panic(err)
	}
	for _, m := range r.Members {
		fmt.Println(m.ID, m.Assigned)
	}
	fmt.Println(r.Protocol, "follow-up:", r.FollowupRequired)
	// Output:
	// consumer-a [{orders [0 2]} {payments [1]}]
	// consumer-b [{orders [1]} {payments [0 2]}]
	// COOPERATIVE follow-up: false
}

// A member joins a cooperative group: the partitions it should get are
// still owned by others, so this round withholds them (KIP-429). The owners
// revoke them, the group rebalances once more, and the newcomer gets them.
func ExampleRun_cooperativeJoin() {
	owned := func(p ...int32) []assign.TopicPartitions {
		return []assign.TopicPartitions{{Topic: "orders", Partitions: p}}
	}
	g := &assign.Group{
		Generation: 2,
		Protocol:   assign.Cooperative,
		Topics:     []assign.Topic{{Name: "orders", Partitions: 4}},
		Members: []assign.Member{
			{ID: "a", Topics: []string{"orders"}, Owned: owned(0, 1), Generation: 1},
			{ID: "b", Topics: []string{"orders"}, Owned: owned(2, 3), Generation: 1},
			{ID: "c", Topics: []string{"orders"}, Generation: assign.NoGeneration},
		},
	}
	r, _ := assign.Run(assign.CooperativeSticky(), g)
	for _, m := range r.Members {
		fmt.Println(m.ID, "assigned", m.Assigned, "revoked", m.Revoked)
	}
	fmt.Println("pending", r.Pending, "follow-up:", r.FollowupRequired)
	// Output:
	// a assigned [{orders [0 1]}] revoked []
	// b assigned [{orders [2]}] revoked [{orders [3]}]
	// c assigned [] revoked []
	// pending [{orders [3]}] follow-up: true
}

// Assignors are looked up by protocol name and version; version 0 is the
// standard one.
func ExampleLookup() {
	a, _ := assign.Lookup("cooperative-sticky", 0)
	fmt.Println(assign.Ref(a), a.Protocols())
	for _, a := range assign.Assignors() {
		fmt.Println(assign.Ref(a))
	}
	// Output:
	// cooperative-sticky@1 [COOPERATIVE EAGER]
	// cooperative-sticky@1
	// cooperative-sticky@2
	// kip848-range@1
	// kip848-uniform@1
	// load-sticky@1
	// range@1
	// roundrobin@1
	// sticky@1
}
