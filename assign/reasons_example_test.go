package assign_test

import (
	"fmt"

	"github.com/assignd/assignd/assign"
)

// consumer-a owned all four partitions; consumer-b joins a COOPERATIVE
// group. Two partitions leave consumer-a for balance: they are withheld
// this round (To is empty) and go to consumer-b in the follow-up.
func ExampleWithMoveDetail() {
	g := &assign.Group{
		Generation: 2,
		Protocol:   assign.Cooperative,
		Topics:     []assign.Topic{{Name: "orders", Partitions: 4}},
		Members: []assign.Member{
			{ID: "consumer-a", Topics: []string{"orders"}, Generation: 1,
				Owned: []assign.TopicPartitions{{Topic: "orders", Partitions: []int32{0, 1, 2, 3}}}},
			{ID: "consumer-b", Topics: []string{"orders"}, Generation: assign.NoGeneration},
		},
	}
	r, err := assign.Run(assign.CooperativeSticky(), g, assign.WithMoveDetail(10))
	if err != nil {
		panic(err)
	}
	for _, mv := range r.Moves {
		fmt.Printf("%s-%d from %q to %q: %s (%s)\n", mv.Topic, mv.Partition, mv.From, mv.To, mv.Reason, mv.Reason.Text())
	}
	fmt.Println("balance:", r.Stats.Reasons[assign.ReasonBalance], "moved:", r.Stats.Moved, "pending:", r.Stats.Pending)
	// Output:
	// orders-2 from "consumer-a" to "": balance (owner over its quota (balance))
	// orders-3 from "consumer-a" to "": balance (owner over its quota (balance))
	// balance: 2 moved: 2 pending: 2
}
