package policy_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

// benchPolicy has n rules that a query for "orders" falls through, each
// with a prefix, a glob and a rollout, before the default rule answers.
func benchPolicy(b *testing.B, n int) *policy.Policy {
	var y strings.Builder
	y.WriteString("version: 1\nrules:\n")
	for i := range n {
		fmt.Fprintf(&y, `  - name: r%d
    match: {group_prefixes: [team-%d-], group_globs: ["eu-%d-*"], protocols: [cooperative-sticky]}
    rollout: {percent: 50}
    assignor: cooperative-sticky@1
`, i, i, i)
	}
	fmt.Fprintf(&y, `  - name: hit
    match: {group_prefixes: [orders]}
    rollout: {percent: 100, exclude: [orders-x]}
    assignor: cooperative-sticky@1
`)
	return mustParse(b, y.String())
}

// BenchmarkSelect measures the request-path cost of the policy: it should
// be negligible next to an assignment (microseconds at most).
func BenchmarkSelect(b *testing.B) {
	for _, n := range []int{0, 10, 100} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			src, err := policy.NewSource(benchPolicy(b, n))
			if err != nil {
				b.Fatal(err)
			}
			defer src.Close()
			ctx := context.Background()
			q := selection.Query{GroupID: "orders-eu", ProtocolName: "cooperative-sticky"}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := src.Select(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkBucket(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		policy.Bucket("", "payments-eu-west-1-orders")
	}
}
