package server

import (
	"context"
	"time"
)

// deadlineReserve is how long before the caller's deadline a waiting call
// gives up, capped at a fifth of the time it had left: answering
// RESOURCE_EXHAUSTED at the deadline itself would race the caller's own
// timer, and the caller would only ever see DEADLINE_EXCEEDED.
const deadlineReserve = 50 * time.Millisecond

// limiter bounds the number of Assign calls computing at once. An
// assignment is CPU- and memory-bound, so running more of them than the
// machine has cores only makes every one slower and the peak heap larger;
// the excess waits in line instead, up to its deadline.
type limiter struct {
	slots   chan struct{}
	maxWait time.Duration
}

func newLimiter(n int, maxWait time.Duration) *limiter {
	return &limiter{slots: make(chan struct{}, n), maxWait: maxWait}
}

// acquire takes a slot, waiting until one is free, until shortly before
// the call's deadline, or for maxWait (0: no cap), whichever comes first.
// It returns errOverloaded when no slot came in time and the context's
// error when the caller went away. On success the caller must call release.
func (l *limiter) acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	default:
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	wait := l.maxWait
	if d, ok := ctx.Deadline(); ok {
		left := time.Until(d)
		w := left - min(deadlineReserve, left/5)
		if w <= 0 {
			return errOverloaded
		}
		if wait <= 0 || w < wait {
			wait = w
		}
	}
	var expired <-chan time.Time
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		expired = t.C
	}
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-expired:
		return errOverloaded
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *limiter) release() { <-l.slots }

// busy is the number of slots taken, for the in-flight gauge.
func (l *limiter) busy() int64 { return int64(len(l.slots)) }
