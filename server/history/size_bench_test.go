package history

import "testing"

// BenchmarkDecisionSize is what counting a decision toward the byte
// bound adds to each record (a 10-member decision).
func BenchmarkDecisionSize(b *testing.B) {
	d := fullDecision("orders-eu-west", 3)
	b.ReportAllocs()
	for b.Loop() {
		decisionSize(d)
	}
}
