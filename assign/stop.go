package assign

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
)

// pollMask makes loops poll their context every 4,096 steps: a few
// microseconds of work apart, so a run stops within a small fraction of a
// millisecond of its context ending, while the poll (a non-blocking receive)
// costs nothing measurable. Loops poll on their first step too, which lets
// tests stop a run inside every loop of every phase.
const pollMask = 1<<12 - 1

// stopper is how a run notices that its context ended (see [WithContext]).
// Loops call at with their step count (over when steps come n at a time,
// spent with the repair's work budget); every pollMask+1 steps it polls.
//
// Without best effort, a poll that finds the context done unwinds the run
// at once with a panic carrying stopSignal, which only Run recovers (as
// encoding/json does with its errors): no loop has to thread an early
// return through its callers, and no half-built state is ever read.
//
// With best effort ([WithBestEffort]), a poll only records the stop.
// Placement and everything after it run to completion regardless, since a
// plan must give every partition to exactly one subscriber; refinements
// (balance repair, homecoming, per-topic trimming, rack matching in range)
// ask skip (or skipAt, spent) and skip or end their work when it says so,
// which records that the plan was cut short (see cutShort).
type stopper struct {
	done       <-chan struct{} // nil: the run cannot be stopped
	bestEffort bool
	stop       bool   // the context ended (seen by a poll)
	cut        bool   // a refinement was skipped or cut short because of it
	phase      string // for pollHook
	mark       int    // the budget left at spent's last poll
}

// stopSignal is the panic value that unwinds a stopped run.
type stopSignal struct{}

// pollHook, when set (by tests), is called on every poll, before the
// context is read, with the phase the run is in.
var pollHook func(phase string)

func newStopper(o *options) stopper {
	s := stopper{bestEffort: o.bestEffort, phase: "validate", mark: math.MaxInt}
	if o.ctx != nil {
		s.done = o.ctx.Done()
	}
	return s
}

// at polls on every pollMask+1-th step i (and on step 0).
func (s *stopper) at(i int) {
	if i&pollMask == 0 && s.done != nil {
		s.poll()
	}
}

// over is at for loops whose steps come n at a time: it adds n to the
// running count step and polls when the count passes a multiple of
// pollMask+1 (counting from -1, so that the first steps poll too). It
// returns the new count.
func (s *stopper) over(step, n int) int {
	next := step + n
	if uint(step-1)^uint(next-1) > pollMask {
		s.poll()
	}
	return next
}

// spent is for work measured by a budget that counts down, as the balance
// repair's does: it polls once the budget left has fallen pollMask+1 below
// where it last polled (and on the first call), and reports, like skip,
// whether the work must end.
func (s *stopper) spent(left int) bool {
	return (left <= s.mark-pollMask-1 || s.stop) && s.spentNow(left)
}

// spentNow is spent's slow path, out of line so that spent inlines.
//
//go:noinline
func (s *stopper) spentNow(left int) bool {
	s.mark = left
	return s.skip()
}

// skip reports whether a refinement must be skipped or end now, and if so
// records that the plan was cut short.
func (s *stopper) skip() bool {
	if s.done != nil && !s.stop {
		s.poll()
	}
	s.cut = s.cut || s.stop
	return s.stop
}

// skipAt is skip for the inner loops of refinements: it polls on every
// pollMask+1-th step i (and on step 0), and is true on any step once a
// stop was seen.
func (s *stopper) skipAt(i int) bool {
	return (i&pollMask == 0 || s.stop) && s.skipNow()
}

// skipNow is skip, out of line so that skipAt inlines.
//
//go:noinline
func (s *stopper) skipNow() bool { return s.skip() }

// sort sorts xs ascending, polling as it compares when xs is long (an
// owned list of millions of partitions, written out of order).
func (s *stopper) sort(xs []int32) {
	if len(xs) <= pollMask {
		slices.Sort(xs)
		return
	}
	step := 0
	slices.SortFunc(xs, func(a, b int32) int {
		step = s.over(step, 1)
		return cmp.Compare(a, b)
	})
}

func (s *stopper) poll() {
	if s.done == nil {
		return
	}
	if pollHook != nil {
		pollHook(s.phase)
	}
	if s.stop {
		return
	}
	select {
	case <-s.done:
	default:
		return
	}
	s.stop = true
	if !s.bestEffort {
		panic(stopSignal{})
	}
}

// stopErr returns the error of a run whose context (see [WithContext]) is
// done, or nil. It is cheap enough for phase boundaries.
func (o *options) stopErr() error {
	if o.ctx == nil || o.ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrStopped, context.Cause(o.ctx))
}
