package assign_test

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// The broker's uniform assignor balances total counts first: a member
// joining a group of two takes what the others give up over their quota of
// two, even though that leaves one topic entirely on the newcomer.
func ExampleKIP848Uniform() {
	g := assigntest.NewGroup().Protocol(assign.Eager).Topic("orders", 3).Topic("payments", 3).
		Member("a", "orders", "payments").Owns("a", "orders", 0, 2).Owns("a", "payments", 0).
		Member("b", "orders", "payments").Owns("b", "orders", 1).Owns("b", "payments", 1, 2).
		Member("c", "orders", "payments").Build()
	r, err := assign.Run(assign.KIP848Uniform(), g)
	if err != nil {
		panic(err)
	}
	for _, m := range r.Members {
		fmt.Println(m.ID, m.Assigned)
	}
	// Output:
	// a [{orders [0 2]}]
	// b [{orders [1]} {payments [1]}]
	// c [{payments [0 2]}]
}

// The broker's range assignor co-partitions topics with the same
// subscribers and partition counts, static members first by instance id.
func ExampleKIP848Range() {
	g := assigntest.NewGroup().Protocol(assign.Eager).Topic("clicks", 3).Topic("views", 3).
		Member("a", "clicks", "views").
		Member("b", "clicks", "views").Static("b", "host-1").Build()
	r, err := assign.Run(assign.KIP848Range(), g)
	if err != nil {
		panic(err)
	}
	for _, m := range r.Members {
		fmt.Println(m.ID, m.Assigned)
	}
	// Output:
	// a [{clicks [2]} {views [2]}]
	// b [{clicks [0 1]} {views [0 1]}]
}
