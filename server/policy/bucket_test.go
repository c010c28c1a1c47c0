package policy_test

import (
	"fmt"
	"strconv"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

// The buckets are part of the contract: replicas, restarts and releases
// must put a group in the same bucket, or a rollout would reshuffle. These
// values are pinned; each can be checked by hand, e.g.
// printf 'canary\0orders' | sha256sum → 168de93749b990f8…, and
// 0x168de93749b990f8 mod 10000 = 8216.
func TestBucketIsStable(t *testing.T) {
	tests := []struct {
		salt, group string
		want        int
	}{
		{"", "", 3192},
		{"", "orders", 2548},
		{"", "payments-eu-1", 3225},
		{"canary", "orders", 8216},
		{"", "ünïcode/groüp", 6627},
	}
	for _, tt := range tests {
		for range 3 {
			if got := policy.Bucket(tt.salt, tt.group); got != tt.want {
				t.Errorf("Bucket(%q, %q) = %d, want %d", tt.salt, tt.group, got, tt.want)
			}
		}
	}
}

// The salt is separated from the group id, so moving characters between
// them changes the bucket.
func TestBucketSaltIsSeparated(t *testing.T) {
	if policy.Bucket("a", "bc") == policy.Bucket("ab", "c") && policy.Bucket("a", "bcd") == policy.Bucket("ab", "cd") {
		t.Error("salt and group id run together")
	}
}

// With 20,000 groups, each decile of buckets should hold close to a tenth:
// the binomial standard deviation is 0.21%, the bound 1%.
func TestBucketDistribution(t *testing.T) {
	const n = 20000
	var deciles [10]int
	for i := range n {
		b := policy.Bucket("", "group-"+strconv.Itoa(i))
		if b < 0 || b >= policy.Buckets {
			t.Fatalf("bucket %d out of range", b)
		}
		deciles[b/1000]++
	}
	for d, c := range deciles {
		if frac := float64(c) / n; frac < 0.09 || frac > 0.11 {
			t.Errorf("decile %d holds %.3f of the groups, want 0.10±0.01", d, frac)
		}
	}
}

func rolloutPolicy(t fataler, basisPoints int, salt string) *policy.Policy {
	return mustParse(t, fmt.Sprintf(`
version: 1
rules:
  - name: canary
    match: {protocols: [cooperative-sticky]}
    rollout: {percent: %d.%02d, salt: %q}
    assignor: cooperative-sticky@1
    params: {max_moves_per_rebalance: 3}
`, basisPoints/100, basisPoints%100, salt))
}

func inRollout(t *rapid.T, p *policy.Policy, group string) bool {
	e, err := p.Explain(group, "cooperative-sticky", selection.Caller{})
	if err != nil {
		t.Fatalf("Explain: %v", err)
	}
	return e.Rule == "canary"
}

// Raising a rule's percentage only adds groups, and a rule applies exactly
// to the groups whose bucket is below the percentage in hundredths.
func TestRaisingPercentOnlyAddsGroups(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.IntRange(0, policy.Buckets).Draw(t, "lo")
		hi := rapid.IntRange(lo, policy.Buckets).Draw(t, "hi")
		salt := rapid.SampledFrom([]string{"", "s1", "rollout-2026"}).Draw(t, "salt")
		before, after := rolloutPolicy(t, lo, salt), rolloutPolicy(t, hi, salt)
		groups := rapid.SliceOfN(rapid.String(), 1, 20).Draw(t, "groups")
		for _, g := range groups {
			was, is := inRollout(t, before, g), inRollout(t, after, g)
			if was && !is {
				t.Fatalf("group %q left the rollout when percent rose from %d to %d bp", g, lo, hi)
			}
			if b := policy.Bucket(salt, g); was != (b < lo) || is != (b < hi) {
				t.Fatalf("group %q in bucket %d: in at %d bp = %t, at %d bp = %t", g, b, lo, was, hi, is)
			}
		}
	})
}

// Include and exclude override the percentage at every percentage.
func TestIncludeExcludeOverridePercent(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		bp := rapid.IntRange(0, policy.Buckets).Draw(t, "bp")
		inc := "inc-" + rapid.StringMatching(`[a-z0-9]{1,8}`).Draw(t, "inc")
		exc := "exc-" + rapid.StringMatching(`[a-z0-9]{1,8}`).Draw(t, "exc")
		p := mustParse(t, fmt.Sprintf(`
version: 1
rules:
  - name: canary
    match: {protocols: [cooperative-sticky]}
    rollout: {percent: %d.%02d, include: [%q], exclude: [%q]}
    assignor: cooperative-sticky@1
    params: {freeze: true}
`, bp/100, bp%100, inc, exc))
		if !inRollout(t, p, inc) {
			t.Fatalf("included group %q not in the rollout at %d bp", inc, bp)
		}
		if inRollout(t, p, exc) {
			t.Fatalf("excluded group %q in the rollout at %d bp", exc, bp)
		}
	})
}
