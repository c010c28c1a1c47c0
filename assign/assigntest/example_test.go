package assigntest_test

import (
	"fmt"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

func ExampleCheck() {
	g := assigntest.NewGroup().
		Topic("t0", 4).
		Member("m1", "t0").
		Member("m2", "t0").
		Build()
	r, err := assign.Run(assign.RoundRobin(), g)
	if err != nil {
		panic(err)
	}
	fmt.Println(assigntest.Check(g, r, assigntest.Balanced()))

	// Hand m1's partitions to m2 as well: the checker names the fault.
	r.Members[1].Assigned = append(r.Members[1].Assigned[:0:0], assign.TopicPartitions{Topic: "t0", Partitions: []int32{0, 1, 2, 3}})
	err = assigntest.Check(g, r)
	for _, v := range assigntest.Violations(err) {
		fmt.Println(v)
	}
	// Output:
	// <nil>
	// duplicate: t0-0 is held by both member "m1" and member "m2"
	// duplicate: t0-2 is held by both member "m1" and member "m2"
	// stats: Stats.Partitions is 4 but 6 partitions are assigned
	// stats: Stats.Imbalance is 0 but assigned counts range from 2 to 4
}
