// Package assigntest is the test support every assignd test shares: the one
// invariant checker for assignment results (Check), a fluent builder for
// test groups (NewGroup), a generator of random groups for property tests
// with pgregory.net/rapid (GroupGen), and helpers that compare rounds
// (Owners, Moves, NextGroup).
//
// A typical test:
//
//	g := assigntest.NewGroup().
//		Topic("t0", 6).
//		Member("m1", "t0").
//		Member("m2", "t0").
//		Build()
//	r, err := assign.Run(assign.Range(), g)
//	if err != nil {
//		t.Fatal(err)
//	}
//	if err := assigntest.Check(g, r, assigntest.Balanced()); err != nil {
//		t.Fatal(err)
//	}
package assigntest
