package server

import (
	"container/list"
	"context"
	"sync"
	"time"

	"google.golang.org/grpc/tap"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
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
// wait. Each class waits in its own line, in arrival order; a release
// grants the earlier-arrived of the two heads that fits, so a large call
// waiting for memory holds up no small one, and granting costs the same
// however long the lines are.
//
// A call that would wait longer than it may is refused at once rather
// than at its deadline, so that its leader falls back within
// milliseconds: its wait is estimated from the calls ahead of it in its
// line and how fast that line recently moved ([admission.expectedWait]).
// A small call may wait at most queueTarget, whatever its deadline
// allows: a standing line helps no one (CoDel's insight), it only turns
// every answer late and every refusal into one that came after a long
// wait. Under overload the line stays about queueTarget deep, which keeps
// the slots busy, and the rest is refused when it arrives. Large calls
// are exempt: one of them holds its slot for a second or more, so the
// wait behind a single other large call already exceeds any useful
// target, and they are too few to make a storm.
//
// The target is applied once, at the door ([admission.early]), before
// the request is read. A call let in there is not refused again for it
// when it reaches its line: by then its request has been received and
// decoded, and refusing it would waste that work and turn a refusal that
// could have been immediate into one after a wait. It waits as its
// deadline allows.
type admission struct {
	slots, largeSlots int
	budget, reserve   int64
	smallBytes        int64
	maxWait           time.Duration
	queueTarget       time.Duration // longest expected wait a small call is queued for; 0: its deadline's
	// largeStart is called, under the lock, when a large call is
	// admitted; largeDone, outside it, when a large call releases.
	largeStart, largeDone func()

	mu          sync.Mutex
	used, large int // slots held, by all calls and by large ones
	// intake counts the calls [admission.early] let through that have not
	// reached acquire yet: their requests are being received and decoded.
	// They are ahead of a call arriving now as surely as the line is, and
	// under a storm they are most of what is ahead: without them the
	// estimate sees a short line while thousands of decodes crowd it.
	intake        int
	admitted      int64 // estimated bytes held, by all calls
	largeAdmitted int64 // and by large ones
	// waiting[class] is the line of the class: small (0) and large (1).
	waiting [2]list.List
	// arrivals numbers the waiters, to grant in arrival order across the
	// lines.
	arrivals uint64
	// held[class] is the recent time a call of the class held its slot
	// (a moving average; 0 until one was released through admit).
	held [2]time.Duration
	// drain is the recent time between two grants from the small line
	// while it stayed non-empty: how fast a backlog is really served,
	// with the CPU spent outside the slots (receiving, decoding, writing
	// answers, refusing) included, which held cannot see. drained is when
	// it was last sampled; lastGrant is the previous grant of the current
	// backlog (zero once the line emptied, so that an idle gap is never
	// taken for service).
	drain              time.Duration
	drained, lastGrant time.Time
	// now is the clock (time.Now; tests set their own).
	now func() time.Time
}

// ticket is one call's claim: its estimated bytes and its class.
type ticket struct {
	bytes int64
	large bool
}

type waiter struct {
	t       ticket
	arrival uint64
	ready   chan struct{} // closed when granted
}

// class is the index of the ticket's line.
func (t ticket) class() int {
	if t.large {
		return 1
	}
	return 0
}

// heldWeight is the weight of the newest hold time in held's average:
// about the last 32 calls. The estimate multiplies it by the calls ahead,
// so it must be their mean, and a fleet's small calls are not alike (the
// small class reaches 150,000 partitions): with a weight of 1/5, one call
// a hundred times the others' length raises the estimate twentyfold, and a
// storm's next calls are refused though the slots would serve them in
// time; with 1/32, about fourfold, fading over the next calls.
const heldWeight = 1.0 / 32

// drainWeight is the weight of the newest interval in drain's average:
// about the last 64 grants, a few milliseconds of a backlog, so that the
// estimate follows a storm's changes within its first tenth of a second
// without one slow call swinging it.
const drainWeight = 1.0 / 64

// drainFresh is how long a drain interval stays the estimate's after it
// was last sampled: a backlog that ended a second ago says little of the
// next one, whose groups may be of other sizes.
const drainFresh = time.Second

// newAdmission builds an admission of slots CPU slots and budget bytes;
// reserve is budget/reserveDivisor and the small-call bound the smaller of
// maxSmallCall and reserve.
func newAdmission(slots int, budget int64, maxWait, queueTarget time.Duration) *admission {
	reserve := budget / reserveDivisor
	return &admission{
		slots: slots, largeSlots: max(1, slots-1),
		budget: budget, reserve: reserve, smallBytes: min(maxSmallCall, reserve),
		maxWait: maxWait, queueTarget: queueTarget,
		now: time.Now,
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
	intakeDone(ctx)
	t, err := a.ticketFor(bytes)
	if err != nil {
		return nil, err
	}
	if err := a.acquire(ctx, t); err != nil {
		return nil, err
	}
	start := time.Now()
	return func() {
		a.observe(t, time.Since(start))
		a.release(t)
	}, nil
}

// observe adds a call's hold time to its class's average.
func (a *admission) observe(t ticket, d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := &a.held[t.class()]
	if *h == 0 {
		*h = d
		return
	}
	*h += time.Duration(heldWeight * float64(d-*h))
}

// expectedWait is how long a call of t's class arriving now would wait:
// the calls ahead of it in its line (a small call's, those in intake too)
// and itself, each served in the class's recent hold time spread over its
// slots, or, for a small call, in the small line's recent drain interval
// when that is longer and fresh: under overload the slots' hold time
// misses the CPU the calls take outside them, and the estimate built on
// it alone let in about twice the calls the queue target allows.
// Callers hold mu.
func (a *admission) expectedWait(t ticket) time.Duration {
	slots := a.slots
	if t.large {
		slots = a.largeSlots
	}
	ahead := a.waiting[t.class()].Len() + 1
	each := a.held[t.class()] / time.Duration(slots)
	if !t.large {
		ahead += a.intake
		if a.drain > each && a.now().Sub(a.drained) < drainFresh {
			each = a.drain
		}
	}
	return each * time.Duration(ahead)
}

// tooLong reports whether a call of t's class, expecting to wait expect,
// should be refused now rather than queued for at most wait (0: no
// limit): when it would wait past its window, or, a small call, past
// queueTarget. Callers hold mu.
func (a *admission) tooLong(t ticket, expect, wait time.Duration) bool {
	if wait > 0 && expect > wait {
		return true
	}
	return !t.large && a.queueTarget > 0 && expect > a.queueTarget
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
		if a.largeStart != nil {
			a.largeStart()
		}
	}
}

// window is how long a call may wait for its slot: until shortly before
// its deadline, at most maxWait (0: no cap). ok is false when it has no
// time to wait at all.
func (a *admission) window(ctx context.Context) (wait time.Duration, ok bool) {
	wait = a.maxWait
	if d, has := ctx.Deadline(); has {
		left := time.Until(d)
		// A waiting call gives up DeadlineReserve before the caller's
		// deadline, capped at a fifth of the time it had left: answering
		// RESOURCE_EXHAUSTED at the deadline itself would race the
		// caller's own timer, and the caller would only ever see
		// DEADLINE_EXCEEDED.
		w := left - min(rpcerr.DeadlineReserve, left/5)
		if w <= 0 {
			return 0, false
		}
		if wait <= 0 || w < wait {
			wait = w
		}
	}
	return wait, true
}

// early refuses, before its request is read, a call that could not start
// in time even as a small one: every slot is busy or spoken for, and the
// calls ahead of it (in intake and in the small calls' line) would keep it
// waiting past its window or queueTarget. It is the same estimate as
// acquire's, made where refusing costs no decoding, no goroutine and no
// share of the CPU the admitted calls need: under a storm at several
// times the capacity, most calls end here. A call it lets through counts
// in intake until it reaches acquire or ends; the returned context
// carries that, for [admission.admit].
func (a *admission) early(ctx context.Context) (context.Context, error) {
	wait, ok := a.window(ctx)
	if ok && wait <= 0 && a.queueTarget <= 0 {
		return ctx, nil // no deadline and no cap: it may wait as long as it takes
	}
	small := ticket{}
	a.mu.Lock()
	if a.used+a.intake >= a.slots {
		if expect := a.expectedWait(small); !ok || a.tooLong(small, expect, wait) {
			a.mu.Unlock()
			return ctx, rpcerr.Overloaded(expect)
		}
	}
	a.intake++
	a.mu.Unlock()
	in := &intakeToken{a: a}
	// The stream's context ends with the call, however it ends (gRPC may
	// abort a stream before any handler or stats event sees it).
	context.AfterFunc(ctx, in.done)
	return context.WithValue(ctx, intakeKey{}, in), nil
}

// intakeToken is one call's place in [admission.intake].
type intakeToken struct {
	a    *admission
	once sync.Once
}

type intakeKey struct{}

// done takes the call out of intake, once.
func (in *intakeToken) done() {
	in.once.Do(func() {
		in.a.mu.Lock()
		in.a.intake--
		in.a.mu.Unlock()
	})
}

// letIn reports whether early let ctx's call in.
func letIn(ctx context.Context) bool {
	_, ok := ctx.Value(intakeKey{}).(*intakeToken)
	return ok
}

// intakeDone takes ctx's call out of intake, if early let it in.
func intakeDone(ctx context.Context) {
	if in, ok := ctx.Value(intakeKey{}).(*intakeToken); ok {
		in.done()
	}
}

// acquire admits t, waiting until it fits, until shortly before the
// call's deadline, or for maxWait (0: no cap), whichever comes first. It
// returns rpcerr.ErrOverloaded when the call was not admitted in time
// (with the wait a call arriving now would expect as its retry hint, see
// [rpcerr.Overloaded]) and the call's end ([rpcerr.CallEnded]) when the
// caller went away. On success the caller must call release(t).
func (a *admission) acquire(ctx context.Context, t ticket) error {
	refused, hint, err := a.queue(ctx, t)
	if refused {
		return rpcerr.Overloaded(hint)
	}
	return err
}

// queue is acquire but for the refusal's error: refused reports that t
// was not admitted in time, hint the wait a call arriving now would
// expect (0: none to give); otherwise err is nil (admitted) or the
// call's end.
func (a *admission) queue(ctx context.Context, t ticket) (refused bool, hint time.Duration, err error) {
	a.mu.Lock()
	if a.fits(t) {
		a.take(t)
		a.mu.Unlock()
		return false, 0, nil
	}
	if ctx.Err() != nil {
		a.mu.Unlock()
		return false, 0, rpcerr.CallEnded(ctx)
	}
	wait, ok := a.window(ctx)
	expect := a.expectedWait(t)
	if !ok || a.tooLong(t, expect, wait) && !(letIn(ctx) && expect <= wait) {
		// It would wait in vain, or too long: refused now, its leader
		// falls back now, and one that retries is told when the line is
		// likely through. A call the door let in is held to its window
		// only: the queue target was applied there.
		a.mu.Unlock()
		return true, expect, nil
	}
	a.arrivals++
	w := &waiter{t: t, arrival: a.arrivals, ready: make(chan struct{})}
	line := &a.waiting[t.class()]
	elem := line.PushBack(w)
	a.mu.Unlock()

	var expired <-chan time.Time
	if wait > 0 {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case <-w.ready:
		return false, 0, nil
	case <-expired:
		refused = true
	case <-ctx.Done():
		err = rpcerr.CallEnded(ctx)
	}
	a.mu.Lock()
	select {
	case <-w.ready:
		// Granted while giving up: hand it back.
		a.mu.Unlock()
		a.release(t)
		return refused, 0, err
	default:
	}
	line.Remove(elem)
	// The head may have been what held its line up.
	a.grant()
	if refused {
		hint = a.expectedWait(t)
	}
	a.mu.Unlock()
	return refused, hint, err
}

// release returns t and admits the waiters that now fit.
func (a *admission) release(t ticket) {
	a.mu.Lock()
	a.used--
	a.admitted -= t.bytes
	if t.large {
		a.large--
		a.largeAdmitted -= t.bytes
	}
	a.grant()
	a.mu.Unlock()
	if t.large && a.largeDone != nil {
		a.largeDone()
	}
}

// grant admits waiters while a line's head fits, the earlier-arrived head
// first. It looks at the two heads only: within a line, calls are served
// in arrival order. Callers hold mu.
func (a *admission) grant() {
	for a.used < a.slots {
		var pick *list.Element
		for c := range a.waiting {
			e := a.waiting[c].Front()
			if e == nil || !a.fits(e.Value.(*waiter).t) {
				continue
			}
			if pick == nil || e.Value.(*waiter).arrival < pick.Value.(*waiter).arrival {
				pick = e
			}
		}
		if pick == nil {
			return
		}
		w := pick.Value.(*waiter)
		a.waiting[w.t.class()].Remove(pick)
		a.take(w.t)
		close(w.ready)
		if !w.t.large {
			a.sampleDrain()
		}
	}
}

// sampleDrain notes a grant from the small line: while the line stays
// non-empty, the time between two grants is how fast it is served.
// Callers hold mu.
func (a *admission) sampleDrain() {
	now := a.now()
	if !a.lastGrant.IsZero() {
		d := now.Sub(a.lastGrant)
		if now.Sub(a.drained) >= drainFresh {
			a.drain = d // a new backlog: no stale average to follow
		} else {
			a.drain += time.Duration(drainWeight * float64(d-a.drain))
		}
		a.drained = now
	}
	a.lastGrant = now
	if a.waiting[0].Len() == 0 {
		a.lastGrant = time.Time{}
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

// queued is the number of calls in line, for the queued gauge.
func (a *admission) queued() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.waiting[0].Len() + a.waiting[1].Len()
}

// refuseEarly is the server's tap: it refuses an Assign call that cannot
// start in time ([admission.early]) when its headers arrive, before gRPC
// reads its request, and counts it in assignd.assign.errors as acquire's
// refusals are (with assignor "none": the policy has not chosen one yet).
func refuseEarly(a *admission, metrics *domainMetrics) tap.ServerInHandle {
	return func(ctx context.Context, info *tap.Info) (context.Context, error) {
		if info.FullMethodName != assigndv1.AssignmentService_Assign_FullMethodName {
			return ctx, nil
		}
		ctx, err := a.early(ctx)
		if err != nil {
			metrics.refused(ctx)
			return ctx, rpcerr.ToStatus(err)
		}
		return ctx, nil
	}
}
