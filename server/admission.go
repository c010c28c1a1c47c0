package server

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/assignd/assignd/server/rpcerr"
)

// admission decides when an Assign call may compute. It bounds two things:
// the calls computing at once (slots: an assignment is CPU-bound, so more
// calls than cores only slow every one), and the sum of their estimated
// memory ([request.EstimateBytes]) under the budget. A call that does not fit
// waits in line, until shortly before its deadline or for maxWait.
//
// Small calls are never starved by large ones: a call is large when its
// estimate exceeds smallBytes, and large calls together may hold at most
// slots−1 slots (all of them when there is only one) and the budget less
// reserve. A small call finds the rest free whatever large calls run or
// wait. Waiters are served in arrival order, except that a call that fits
// goes ahead of one that does not (a large call waiting for memory holds
// up no small one).
type admission struct {
	slots, largeSlots int
	budget, reserve   int64
	smallBytes        int64
	maxWait           time.Duration
	// largeDone is called, outside the lock, when a large call releases.
	largeDone func()

	mu            sync.Mutex
	used, large   int   // slots held, by all calls and by large ones
	admitted      int64 // estimated bytes held, by all calls
	largeAdmitted int64 // and by large ones
	waiters       list.List
}

// ticket is one call's claim: its estimated bytes and its class.
type ticket struct {
	bytes int64
	large bool
}

type waiter struct {
	t     ticket
	ready chan struct{} // closed when granted
}

// newAdmission builds an admission of slots CPU slots and budget bytes;
// reserve is budget/reserveDivisor and the small-call bound the smaller of
// maxSmallCall and reserve.
func newAdmission(slots int, budget int64, maxWait time.Duration) *admission {
	reserve := budget / reserveDivisor
	return &admission{
		slots: slots, largeSlots: max(1, slots-1),
		budget: budget, reserve: reserve, smallBytes: min(maxSmallCall, reserve),
		maxWait: maxWait,
	}
}

// reserveDivisor: small calls keep 1/8 of the memory budget for
// themselves.
const reserveDivisor = 8

// maxSmallCall is the largest estimate of a small call: 8 MiB, about
// 150,000 partitions or 7,000 members, which covers ordinary groups.
const maxSmallCall = 8 << 20

// ticketFor classifies a call of the given estimate, or refuses it when it
// could never be admitted, however long it waited.
func (a *admission) ticketFor(bytes int64) (ticket, error) {
	t := ticket{bytes: bytes, large: bytes > a.smallBytes}
	if t.large && bytes > a.budget-a.reserve {
		return t, &rpcerr.LimitError{What: "memory_bytes", Limit: a.budget - a.reserve, Got: bytes,
			Setting: "estimated from the request's partitions, members and size; --memory-budget less the share kept for small calls"}
	}
	return t, nil
}

// admit classifies a call of the given estimate and admits it
// ([admission.ticketFor], then [admission.acquire]). On success it returns
// what releases it, to run once the response is written.
func (a *admission) admit(ctx context.Context, bytes int64) (release func(), err error) {
	t, err := a.ticketFor(bytes)
	if err != nil {
		return nil, err
	}
	if err := a.acquire(ctx, t); err != nil {
		return nil, err
	}
	return func() { a.release(t) }, nil
}

// fits reports whether t can be granted now. Callers hold mu.
func (a *admission) fits(t ticket) bool {
	if a.used >= a.slots || a.admitted+t.bytes > a.budget {
		return false
	}
	return !t.large || (a.large < a.largeSlots && a.largeAdmitted+t.bytes <= a.budget-a.reserve)
}

// take grants t. Callers hold mu.
func (a *admission) take(t ticket) {
	a.used++
	a.admitted += t.bytes
	if t.large {
		a.large++
		a.largeAdmitted += t.bytes
	}
}

// acquire admits t, waiting until it fits, until shortly before the
// call's deadline, or for maxWait (0: no cap), whichever comes first. It
// returns rpcerr.ErrOverloaded when the call was not admitted in time and the
// call's end ([rpcerr.CallEnded]) when the caller went away. On success the
// caller must call release(t).
func (a *admission) acquire(ctx context.Context, t ticket) error {
	a.mu.Lock()
	if a.fits(t) {
		a.take(t)
		a.mu.Unlock()
		return nil
	}
	if ctx.Err() != nil {
		a.mu.Unlock()
		return rpcerr.CallEnded(ctx)
	}
	wait := a.maxWait
	if d, ok := ctx.Deadline(); ok {
		left := time.Until(d)
		// A waiting call gives up DeadlineReserve before the caller's
		// deadline, capped at a fifth of the time it had left: answering
		// RESOURCE_EXHAUSTED at the deadline itself would race the
		// caller's own timer, and the caller would only ever see
		// DEADLINE_EXCEEDED.
		w := left - min(rpcerr.DeadlineReserve, left/5)
		if w <= 0 {
			a.mu.Unlock()
			return rpcerr.ErrOverloaded
		}
		if wait <= 0 || w < wait {
			wait = w
		}
	}
	w := &waiter{t: t, ready: make(chan struct{})}
	elem := a.waiters.PushBack(w)
	a.mu.Unlock()

	var expired <-chan time.Time
	if wait > 0 {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		expired = timer.C
	}
	var err error
	select {
	case <-w.ready:
		return nil
	case <-expired:
		err = rpcerr.ErrOverloaded
	case <-ctx.Done():
		err = rpcerr.CallEnded(ctx)
	}
	a.mu.Lock()
	select {
	case <-w.ready:
		// Granted while giving up: hand it back.
		a.mu.Unlock()
		a.release(t)
		return err
	default:
	}
	a.waiters.Remove(elem)
	a.mu.Unlock()
	return err
}

// release returns t and admits the waiters that now fit, in order.
func (a *admission) release(t ticket) {
	a.mu.Lock()
	a.used--
	a.admitted -= t.bytes
	if t.large {
		a.large--
		a.largeAdmitted -= t.bytes
	}
	for e := a.waiters.Front(); e != nil; {
		next := e.Next()
		if w := e.Value.(*waiter); a.fits(w.t) {
			a.take(w.t)
			a.waiters.Remove(e)
			close(w.ready)
		}
		e = next
	}
	a.mu.Unlock()
	if t.large && a.largeDone != nil {
		a.largeDone()
	}
}

// busy is the number of slots taken, for the in-flight gauge.
func (a *admission) busy() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return int64(a.used)
}

// admittedBytes is the estimated memory of the calls computing, for the
// admitted-memory gauge.
func (a *admission) admittedBytes() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.admitted
}

// waiting is the number of calls in line, for the queued gauge.
func (a *admission) waiting() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.waiters.Len()
}
