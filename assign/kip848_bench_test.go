package assign_test

import (
	"testing"

	"github.com/assignd/assignd/assign"
)

// BenchmarkKIP848 compares the KIP-848 reproductions with
// cooperative-sticky@1, the peer, on the scenarios, in the same run
// (engine only: the assignment, input already decoded). U and R are
// heterogeneous (uniform's heterogeneous builder), A, B and B2 homogeneous;
// B, B2, U-leave and R-join own cooperative-sticky's previous result, which
// the broker imports as its current assignment at an online migration.
// Each reports imbalance, moved and topicspread as BenchmarkCooperativeSticky
// does.
// Run: go test ./assign -run '^$' -bench KIP848 -benchtime 3x -count 5
func BenchmarkKIP848(b *testing.B) {
	assignors := []assign.Assignor{assign.CooperativeSticky(), assign.KIP848Uniform(), assign.KIP848Range()}
	for _, name := range []string{"U", "U-leave", "A", "B", "B2", "R", "R-join"} {
		s := benchScenario(name)
		for _, a := range assignors {
			b.Run(name+"/"+assign.Ref(a), func(b *testing.B) {
				b.ReportAllocs()
				var r *assign.Result
				for b.Loop() {
					var err error
					if r, err = assign.Run(a, s.group); err != nil {
						b.Fatal(err)
					}
				}
				reportQuality(b, s, assigndEncode(r))
			})
		}
	}
}
