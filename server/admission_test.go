package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/server/rpcerr"
)

// TestAdmissionWait: a call that does not fit waits until shortly before
// its deadline, or for maxWait, or until its caller goes away.
func TestAdmissionWait(t *testing.T) {
	l := newAdmission(1, 1<<30, 0, 0)
	small := ticket{bytes: 1 << 10}
	if err := l.acquire(context.Background(), small); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		ctx     func() (context.Context, context.CancelFunc)
		maxWait time.Duration
		want    error
		within  time.Duration
	}{
		{"deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 100*time.Millisecond)
		}, 0, rpcerr.ErrOverloaded, 100 * time.Millisecond},
		{"max wait before deadline", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 10*time.Second)
		}, 50 * time.Millisecond, rpcerr.ErrOverloaded, 60 * time.Millisecond},
		{"max wait without deadline", func() (context.Context, context.CancelFunc) {
			return context.WithCancel(context.Background())
		}, 50 * time.Millisecond, rpcerr.ErrOverloaded, 60 * time.Millisecond},
		{"already past deadline", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		}, 0, context.DeadlineExceeded, 0},
		{"canceled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(30*time.Millisecond, cancel)
			return ctx, cancel
		}, 0, context.Canceled, 40 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l.maxWait = tt.maxWait
			ctx, cancel := tt.ctx()
			defer cancel()
			start := time.Now()
			err := l.acquire(ctx, small)
			if !errors.Is(err, tt.want) {
				t.Fatalf("acquire = %v, want %v", err, tt.want)
			}
			// It gives up before the deadline, and not much before.
			if took := time.Since(start); took > tt.within+time.Second || took < tt.within*7/10 {
				t.Errorf("gave up after %s, want about %s", took, tt.within)
			}
		})
	}
	l.release(small)
	if err := l.acquire(context.Background(), small); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// TestAdmissionClasses: large calls hold at most slots−1 slots and the
// budget less its reserve, so a small call always finds room; a large call
// that could never fit is refused at once; a small call goes ahead of a
// large one waiting; releasing admits the waiters that now fit.
func TestAdmissionClasses(t *testing.T) {
	const budget = 800 << 20 // reserve 100 MiB, small calls up to 8 MiB
	a := newAdmission(3, budget, 0, 0)
	if a.reserve != 100<<20 || a.smallBytes != maxSmallCall || a.largeSlots != 2 {
		t.Fatalf("reserve %d, small bytes %d, large slots %d", a.reserve, a.smallBytes, a.largeSlots)
	}
	mustTicket := func(bytes int64) ticket {
		t.Helper()
		tk, err := a.ticketFor(bytes)
		if err != nil {
			t.Fatalf("ticketFor(%d): %v", bytes, err)
		}
		return tk
	}
	tests := []struct {
		bytes   int64
		large   bool
		refused bool
	}{
		{1, false, false},
		{maxSmallCall, false, false},
		{maxSmallCall + 1, true, false},
		{budget - budget/8, true, false},
		{budget - budget/8 + 1, true, true},
	}
	for _, tc := range tests {
		tk, err := a.ticketFor(tc.bytes)
		var le *rpcerr.LimitError
		if got := errors.As(err, &le); got != tc.refused || tk.large != tc.large {
			t.Errorf("ticketFor(%d) = %+v, %v; want large %v, refused %v", tc.bytes, tk, err, tc.large, tc.refused)
		}
		if tc.refused && (le.What != "memory_bytes" || le.Limit != budget-budget/8 || le.Got != tc.bytes || !strings.Contains(le.Error(), "--memory-budget")) {
			t.Errorf("refusal %+v: %v", le, le)
		}
	}

	ctx := context.Background()
	quick := func() context.Context {
		c, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		t.Cleanup(cancel)
		return c
	}
	big1, big2, big3 := mustTicket(300<<20), mustTicket(300<<20), mustTicket(10<<20)
	for _, tk := range []ticket{big1, big2} {
		if err := a.acquire(ctx, tk); err != nil {
			t.Fatal(err)
		}
	}
	// Two large calls hold two of three slots: a third large one waits
	// (no large slot), a small one proceeds.
	if err := a.acquire(quick(), big3); !errors.Is(err, rpcerr.ErrOverloaded) {
		t.Fatalf("third large call: %v, want rpcerr.ErrOverloaded", err)
	}
	small := mustTicket(1 << 20)
	if err := a.acquire(quick(), small); err != nil {
		t.Fatalf("small call beside two large ones: %v", err)
	}
	a.release(small)

	// A large call waits for memory; a small call arriving later is
	// admitted first; releasing a large call admits the waiter.
	a.release(big2)
	big4 := mustTicket(500 << 20) // 300 + 500 > 700 (budget less reserve)
	granted := make(chan error, 1)
	go func() { granted <- a.acquire(ctx, big4) }()
	for a.queued() == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := a.acquire(quick(), small); err != nil {
		t.Fatalf("small call behind a waiting large one: %v", err)
	}
	a.release(small)
	a.release(big1)
	if err := <-granted; err != nil {
		t.Fatalf("large waiter after release: %v", err)
	}
	a.release(big4)
	if a.busy() != 0 || a.admittedBytes() != 0 || a.queued() != 0 {
		t.Errorf("after all releases: busy %d, admitted %d, waiting %d", a.busy(), a.admittedBytes(), a.queued())
	}
}

// TestAdmissionOneSlot: with one slot, large calls may take it (nothing
// is kept for small calls).
func TestAdmissionOneSlot(t *testing.T) {
	a := newAdmission(1, 1<<30, 0, 0)
	tk, err := a.ticketFor(512 << 20)
	if err != nil || !tk.large {
		t.Fatalf("ticketFor: %+v %v", tk, err)
	}
	if err := a.acquire(context.Background(), tk); err != nil {
		t.Fatal(err)
	}
	a.release(tk)
}

// TestAdmissionRefusesWhatCannotStartInTime: a call whose wait, estimated
// from the calls ahead of it and the recent hold time, exceeds what its
// deadline allows is refused at once; one that can wait is queued and
// admitted in arrival order.
func TestAdmissionRefusesWhatCannotStartInTime(t *testing.T) {
	a := newAdmission(1, 1<<30, 0, 0)
	ctx := context.Background()
	release, err := a.admit(ctx, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	release() // one hold of about 50 ms observed
	release, err = a.admit(ctx, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	// Three calls wait behind the one holding the slot, with time to spare.
	long, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			r, err := a.admit(long, 1<<10)
			if err != nil {
				t.Errorf("waiter %d: %v", i, err)
				order <- -1
				return
			}
			order <- i
			r()
		}()
		for a.queued() != i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	// A fourth with 100 ms left would wait about 4 × 50 ms: refused now.
	short, cancel2 := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel2()
	start := time.Now()
	_, err = a.admit(short, 1<<10)
	if !errors.Is(err, rpcerr.ErrOverloaded) {
		t.Fatalf("a call that cannot start in time: %v, want ErrOverloaded", err)
	}
	if took := time.Since(start); took > 20*time.Millisecond {
		t.Errorf("refused after %s, want at once", took)
	}
	// Its retry hint is the wait it was refused for: four holds of the
	// one observed so far, which lasted at least 50 ms.
	var oe *rpcerr.OverloadError
	if !errors.As(err, &oe) || oe.RetryAfter < 4*50*time.Millisecond {
		t.Errorf("refusal %#v carries no retry hint of at least 200ms", err)
	}
	release()
	for want := range 3 {
		if got := <-order; got != want {
			t.Fatalf("admitted waiter %d, want %d (arrival order)", got, want)
		}
	}
}

// TestAdmissionQueueTarget: a small call is queued only while its
// expected wait is within the queue target, whatever its deadline
// allows; beyond it, it is refused at once, before its request is read
// (early) as well as after (acquire), with its expected wait as the
// hint. Large calls wait as their deadline allows.
func TestAdmissionQueueTarget(t *testing.T) {
	a := newAdmission(1, 1<<30, 0, 100*time.Millisecond)
	a.held[0] = 40 * time.Millisecond // the recent hold time of a small call
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	holding, err := a.admit(ctx, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	// Two waiters expect 40 and 80 ms: within the target, queued.
	done := make(chan error, 3)
	for i := range 2 {
		ectx, err := a.early(ctx)
		if err != nil {
			t.Fatalf("waiter %d refused before its request was read: %v", i, err)
		}
		go func() {
			r, err := a.admit(ectx, 1<<10)
			if err == nil {
				r()
			}
			done <- err
		}()
		for a.queued() != i+1 {
			time.Sleep(time.Millisecond)
		}
	}
	// A third would expect 120 ms: refused at once, at both checks, though
	// its deadline is a minute away.
	_, err = a.early(ctx)
	var oe *rpcerr.OverloadError
	if !errors.As(err, &oe) || oe.RetryAfter != 120*time.Millisecond {
		t.Errorf("early: %v, want OVERLOADED with a 120ms hint", err)
	}
	// (Its own deadline of 5 s bounds this test should it be queued.)
	five, cancel5 := context.WithTimeout(ctx, 5*time.Second)
	defer cancel5()
	start := time.Now()
	_, err = a.admit(five, 1<<10)
	if !errors.As(err, &oe) || oe.RetryAfter != 120*time.Millisecond {
		t.Errorf("admit: %v, want OVERLOADED with a 120ms hint", err)
	}
	if took := time.Since(start); took > 20*time.Millisecond {
		t.Errorf("refused after %s, want at once", took)
	}
	// A large call is not held to the target: it waits its turn.
	a.held[1] = time.Second
	go func() {
		r, err := a.admit(ctx, 64<<20)
		if err == nil {
			r()
		}
		done <- err
	}()
	for a.queued() != 3 {
		time.Sleep(time.Millisecond)
	}
	holding()
	for range 3 {
		if err := <-done; err != nil {
			t.Errorf("a queued call: %v", err)
		}
	}

	// Without a target, the deadline alone decides: the same line takes a
	// third small call.
	b := newAdmission(1, 1<<30, 0, 0)
	b.held[0] = 40 * time.Millisecond
	b.waiting[0].PushBack(&waiter{})
	b.waiting[0].PushBack(&waiter{})
	b.used = 1
	if _, err := b.early(ctx); err != nil {
		t.Errorf("no target: refused %v", err)
	}
}

// TestAdmissionCountsIntake: the calls early let through that have not
// reached acquire yet (their requests still being read and decoded) are
// ahead of a new arrival as the line is, so a storm is refused at its
// headers even while the line itself is still short; a call leaves intake
// when it reaches acquire or when its stream ends, however it ends.
func TestAdmissionCountsIntake(t *testing.T) {
	a := newAdmission(1, 1<<30, 0, 100*time.Millisecond)
	a.held[0] = 40 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// The slot is free: the first is let in; the next expects 80 ms (the
	// one in intake, then itself), within the target.
	var streams []context.CancelFunc
	var inIntake []context.Context
	for i := range 2 {
		sctx, end := context.WithCancel(ctx)
		streams = append(streams, end)
		ectx, err := a.early(sctx)
		if err != nil {
			t.Fatalf("call %d refused with %d in intake: %v", i, i, err)
		}
		inIntake = append(inIntake, ectx)
	}
	// A third would expect 120 ms: refused, though no call is in line.
	_, err := a.early(ctx)
	var oe *rpcerr.OverloadError
	if !errors.As(err, &oe) || oe.RetryAfter != 120*time.Millisecond {
		t.Fatalf("with 2 in intake and none in line: %v, want OVERLOADED with a 120ms hint", err)
	}
	// One reaches acquire and takes the slot, the other's stream ends
	// before its handler ran: none in intake and the slot held, so a new
	// call expects 40 ms and is let in, and then one more (80 ms).
	release, err := a.admit(inIntake[0], 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	streams[1]()
	deadline := time.Now().Add(5 * time.Second)
	for {
		a.mu.Lock()
		n := a.intake
		a.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("intake %d after one call was admitted and the other ended, want 0", n)
		}
		time.Sleep(time.Millisecond)
	}
	for i := range 2 {
		if _, err := a.early(ctx); err != nil {
			t.Errorf("call %d with the slot held and %d in intake: %v, want let in", i, i, err)
		}
	}
	if _, err := a.early(ctx); err == nil {
		t.Error("a third with the slot held and 2 in intake was let in, want refused")
	}
	for _, end := range streams {
		end()
	}
}

// BenchmarkAdmissionDeepQueue: releasing a slot with thousands of calls
// in line that cannot take it (large calls, their one slot held) costs
// the same as with none.
func BenchmarkAdmissionDeepQueue(b *testing.B) {
	for _, depth := range []int{0, 1000, 20000} {
		b.Run(fmt.Sprintf("waiters=%d", depth), func(b *testing.B) {
			a := newAdmission(2, 1<<40, 0, 0)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			big, err := a.ticketFor(1 << 30)
			if err != nil || !big.large {
				b.Fatal(big, err)
			}
			small := ticket{bytes: 1 << 10}
			if err := a.acquire(ctx, big); err != nil {
				b.Fatal(err)
			}
			if err := a.acquire(ctx, small); err != nil {
				b.Fatal(err)
			}
			for range depth {
				go func() { _ = a.acquire(ctx, big) }()
			}
			for a.queued() < depth {
				time.Sleep(time.Millisecond)
			}
			for b.Loop() {
				a.release(small)
				if err := a.acquire(ctx, small); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
