package runner

import "github.com/assignd/assignd/assign/internal/versioned"

// Family is one family of assignors: its closed registry of versions A
// and its run, which builds a planner P from a group *G (validating it),
// lets an assignor plan with it, and reads the result R out of it. The
// family's package keeps only these three steps; the registry, the
// polling and the stopping are the same for every family.
type Family[A versioned.Assignor, G, P, R any] struct {
	versioned.Registry[A]
	start  func(*G, Poller) (P, error)
	plan   func(A, P)
	result func(P, string) R
}

// NewFamily returns the family of as, run by start, plan and result:
// start validates a group and builds the planner that polls the given
// [Poller]; plan is an assignor's work on that planner; result reads
// the plan out, named by the assignor's [versioned.Ref].
func NewFamily[A versioned.Assignor, G, P, R any](start func(*G, Poller) (P, error), plan func(A, P), result func(P, string) R, as ...A) Family[A, G, P, R] {
	return Family[A, G, P, R]{versioned.NewRegistry(as...), start, plan, result}
}

// Ref names an assignor of the family and its version, as "sticky@1".
func (Family[A, G, P, R]) Ref(a A) string { return versioned.Ref(a) }

// Run validates g and computes a's plan of it, as [Run] does with opts:
// a missing or invalid group's error is an [Invalid] one, a stopped
// run's wraps [assign.ErrStopped].
func (f Family[A, G, P, R]) Run(a A, g *G, opts []Option) (R, error) {
	if g == nil {
		var none R
		return none, Invalid("", "group", "missing")
	}
	return Run(opts, func(poll Poller) (R, error) {
		p, err := f.start(g, poll)
		if err != nil {
			var none R
			return none, err
		}
		f.plan(a, p)
		return f.result(p, versioned.Ref(a)), nil
	})
}
