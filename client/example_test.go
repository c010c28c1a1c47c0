package client_test

import (
	"context"
	"fmt"
	"time"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/shimtest"
)

// startExampleServer runs an assignd with the default policy on a loopback
// port, as `go run ./cmd/assignd` would, and returns its address and a stop
// function.
func startExampleServer() (string, func()) {
	addr, stop, err := shimtest.StartAssignd(selection.Default())
	if err != nil {
		panic(err)
	}
	return addr, stop
}

// A leader asks assignd to assign a two-member range group. Real leaders
// send each member's raw JoinGroup metadata (Member.metadata); the
// explicit fields are convenient for tools and tests.
func ExampleClient_Assign() {
	addr, stop := startExampleServer()
	defer stop()

	c, err := client.New("dns:///"+addr, client.WithTimeout(2*time.Second))
	if err != nil {
		panic(err)
	}
	defer c.Close()

	resp, err := c.Assign(context.Background(), &assigndv1.AssignRequest{
		GroupId:      "orders",
		GenerationId: 1,
		ProtocolName: "range",
		Members: []*assigndv1.Member{
			{MemberId: "m1", Topics: []string{"orders"}},
			{MemberId: "m2", Topics: []string{"orders"}},
		},
		Topics: []*assigndv1.Topic{{Name: "orders", PartitionCount: 5}},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.GetAssignor(), resp.GetRebalanceProtocol())
	for _, a := range resp.GetAssignments() {
		for _, tp := range a.GetPartitions() {
			fmt.Println(a.GetMemberId(), tp.GetTopic(), tp.GetPartitions())
		}
	}
	// Output:
	// range REBALANCE_PROTOCOL_EAGER
	// m1 orders [0 1 2]
	// m2 orders [3 4]
}

func ExampleClient_ListAssignors() {
	addr, stop := startExampleServer()
	defer stop()

	c, err := client.New(addr)
	if err != nil {
		panic(err)
	}
	defer c.Close()

	assignors, err := c.ListAssignors(context.Background())
	if err != nil {
		panic(err)
	}
	// Older versions stay listed (and runnable) for rollbacks; print each
	// protocol name once with its default rebalance protocol.
	seen := map[string]bool{}
	for _, a := range assignors {
		if !seen[a.GetName()] {
			seen[a.GetName()] = true
			fmt.Println(a.GetName(), a.GetProtocols()[0])
		}
	}
	// Output:
	// cooperative-sticky REBALANCE_PROTOCOL_COOPERATIVE
	// kip848-range REBALANCE_PROTOCOL_COOPERATIVE
	// kip848-uniform REBALANCE_PROTOCOL_COOPERATIVE
	// load-sticky REBALANCE_PROTOCOL_COOPERATIVE
	// range REBALANCE_PROTOCOL_EAGER
	// roundrobin REBALANCE_PROTOCOL_EAGER
	// sticky REBALANCE_PROTOCOL_EAGER
}
