package assign_test

import (
	"fmt"

	"github.com/assignd/assignd/assign"
)

// A hot partition among idle ones: load-sticky gives its member nothing
// else, where counting partitions would give every member three.
func ExampleLoadSticky() {
	g := &assign.Group{
		Protocol: assign.Cooperative,
		Topics:   []assign.Topic{{Name: "orders", Partitions: 9}},
		Members: []assign.Member{
			{ID: "a", Topics: []string{"orders"}, Generation: assign.NoGeneration},
			{ID: "b", Topics: []string{"orders"}, Generation: assign.NoGeneration},
			{ID: "c", Topics: []string{"orders"}, Generation: assign.NoGeneration},
		},
		Weights: []assign.TopicWeights{{Topic: "orders", Weights: []float64{90, 10, 10, 10, 10, 10, 10, 10, 10}}},
	}
	r, err := assign.Run(assign.LoadSticky(), g)
	if err != nil {
		panic(err)
	}
	for _, m := range r.Members {
		fmt.Println(m.ID, m.Assigned)
	}
	fmt.Printf("largest load %g, bound %g, snapshot %s\n", r.Load.Max, r.Load.Bound, r.Load.Snapshot)
	// Output:
	// a [{orders [0]}]
	// b [{orders [1 3 5 7]}]
	// c [{orders [2 4 6 8]}]
	// largest load 90, bound 90, snapshot sha256:f4f8846c1dda4cc8
}
