package server

import (
	"context"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/selection"
)

// pinnedSelector runs one assignor behind every protocol name, keeping the
// protocol each name's clients run, as a policy rule does.
type pinnedSelector struct{ a assign.Assignor }

func (s pinnedSelector) Select(_ context.Context, q selection.Query) (selection.Selection, error) {
	p := assign.ProtocolUnspecified
	if std, ok := assign.StandardOf(q.ProtocolName); ok && !std.Allows(assign.Cooperative) {
		p = assign.Eager
	}
	return selection.Selection{Assignor: s.a, Protocol: p, Policy: "pinned/test"}, nil
}

// TestEstimateCoversKIP848Assignors: the admission estimate, made from the
// request's shape whatever assignor a policy puts behind it, also covers
// what a call allocates when kip848-uniform@1 or kip848-range@1 runs, on
// every shape of TestEstimateCoversAllocation. Only the lower bound
// applies: these assignors may allocate far less than the estimate, which
// is sized for the sticky ones. The ratios are logged (-v).
func TestEstimateCoversKIP848Assignors(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a few hundred MiB; skipped with -short")
	}
	for _, a := range []assign.Assignor{assign.KIP848Uniform(), assign.KIP848Range()} {
		for _, r := range estimateRatios(t, pinnedSelector{a}) {
			t.Logf("%s %-55s allocated %6.1f MiB  estimate %6.1f MiB  ratio %.2f", assign.Ref(a), r.shape,
				float64(r.allocated)/(1<<20), float64(r.estimate)/(1<<20), r.ratio)
			if r.ratio < 1 {
				t.Errorf("%s, %s: estimate %d for %d allocated (ratio %.2f), want at least 1", assign.Ref(a), r.shape, r.estimate, r.allocated, r.ratio)
			}
		}
	}
}
