// Package policytest holds the policy documents that the tests of several
// packages (the policy source, the staged rollouts, the binary) are
// written against, so that each is written once, and serves them.
package policytest

import (
	"strings"
	"testing"

	"github.com/assignd/assignd/server/policy"
)

// CappedShadowed caps cooperative-sticky@1 at one move per rebalance and
// shadows it uncapped: the shadow shows what lifting the cap would do.
const CappedShadowed = `version: 1
rules:
  - name: capped
    match: {protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    params: {max_moves_per_rebalance: 1}
    shadow:
      assignor: cooperative-sticky@1
`

// Canary is a policy of one staged rule, canary: cooperative-sticky@1
// capped at four moves per rebalance for the groups named orders-*.
// rollout holds the lines of its rollout block (steps, include, gate),
// each written without indentation.
func Canary(rollout ...string) string {
	var b strings.Builder
	b.WriteString(`version: 1
rules:
  - name: canary
    match: {group_prefixes: [orders-]}
    assignor: cooperative-sticky@1
    params: {max_moves_per_rebalance: 4}
    rollout:
`)
	for _, l := range rollout {
		b.WriteString("      " + l + "\n")
	}
	return b.String()
}

// Serve parses doc and serves it as a policy Source with opts, closed
// when the test ends.
func Serve(t testing.TB, doc string, opts ...policy.Option) *policy.Source {
	t.Helper()
	p, err := policy.Parse("policy.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return ServePolicy(t, p, opts...)
}

// ServePolicy serves p as a policy Source with opts, closed when the
// test ends.
func ServePolicy(t testing.TB, p *policy.Policy, opts ...policy.Option) *policy.Source {
	t.Helper()
	src, err := policy.NewSource(p, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = src.Close() })
	return src
}
