package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/assignd/assignd/server/rpcerr"
)

// fakeClock is a settable clock for the admission's drain estimate.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time          { return c.t }
func (c *fakeClock) advance(d time.Duration) { c.t = c.t.Add(d) }

// releaseEvery releases n small calls of a, one every d of clock.
func releaseEvery(a *admission, clock *fakeClock, n int, d time.Duration) {
	for range n {
		clock.advance(d)
		a.release(ticket{bytes: 1 << 10})
	}
}

// wantWait checks the wait a small call arriving now at a expects.
func wantWait(t *testing.T, a *admission, want time.Duration, when string) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	if got := a.expectedWait(ticket{bytes: 1 << 10}); got != want {
		t.Errorf("%s: expected wait %s, want %s", when, got, want)
	}
}

// queueSmall puts n small waiters in a's line, as acquire would, and
// returns them.
func queueSmall(a *admission, n int) []*waiter {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ws []*waiter
	for range n {
		a.arrivals++
		w := &waiter{t: ticket{bytes: 1 << 10}, arrival: a.arrivals, ready: make(chan struct{})}
		a.waiting[0].PushBack(w)
		ws = append(ws, w)
	}
	return ws
}

// TestAdmissionDrainEstimate: while the small line stays non-empty, the
// time between its grants becomes the estimate's time per call when it
// is longer than the slots' hold time suggests (the CPU spent outside the
// slots slows the line down); an idle gap between two backlogs is never
// taken for service, and a drain interval older than drainFresh no
// longer counts.
func TestAdmissionDrainEstimate(t *testing.T) {
	clock := &fakeClock{t: time.Unix(1_000_000, 0)}
	a := newAdmission(2, 1<<30, 0, 0)
	a.now = clock.now
	a.held[0] = 2 * time.Millisecond // 1 ms a call over two slots
	small := ticket{bytes: 1 << 10}
	a.used = 2
	ws := queueSmall(a, 10)

	wantWait(t, a, 11*time.Millisecond, "before any grant (11 calls × 1 ms)")

	// The line is served one call every 4 ms, four times slower than the
	// slots' hold time says.
	releaseEvery(a, clock, 5, 4*time.Millisecond)
	for _, w := range ws[:5] {
		select {
		case <-w.ready:
		default:
			t.Fatal("a waiter at the head of the line was not granted")
		}
	}
	a.mu.Lock()
	if a.drain != 4*time.Millisecond {
		t.Errorf("drain %s after grants 4 ms apart, want 4ms", a.drain)
	}
	a.mu.Unlock()
	// 5 in line, the newcomer: 6 calls × 4 ms.
	wantWait(t, a, 24*time.Millisecond, "with a slow line")

	// The line empties; after an idle gap a new backlog's first grant
	// samples nothing (the gap was idleness, not service).
	releaseEvery(a, clock, 5, 4*time.Millisecond)
	a.mu.Lock()
	drained, lastGrant := a.drained, a.lastGrant
	a.mu.Unlock()
	if !lastGrant.IsZero() {
		t.Errorf("the line emptied but lastGrant is %v, want zero", lastGrant)
	}
	clock.advance(300 * time.Millisecond)
	queueSmall(a, 2)
	a.release(small)
	a.mu.Lock()
	if a.drained != drained || a.drain != 4*time.Millisecond {
		t.Errorf("a grant after an idle gap sampled it: drain %s, sampled at %v (was %v)", a.drain, a.drained, drained)
	}
	a.mu.Unlock()
	// Once the drain interval is stale, the hold time alone counts
	// again: 1 in line and the newcomer, 1 ms each.
	clock.advance(drainFresh)
	wantWait(t, a, 2*time.Millisecond, "with a stale drain interval")

	// A line served faster than the hold time suggests (two slots
	// granting at once) does not lower the estimate below it.
	b := newAdmission(2, 1<<30, 0, 0)
	b.now = clock.now
	b.held[0] = 10 * time.Millisecond
	b.used = 2
	queueSmall(b, 4)
	releaseEvery(b, clock, 3, time.Millisecond)
	wantWait(t, b, 10*time.Millisecond, "with a fast line (2 calls × 5 ms)")
}

// TestAdmissionDoorAppliesTheTarget: the queue target is applied at the
// door. A call the door let in, whose request has been read and decoded
// since, is queued when it reaches its line even though the line has
// grown past the target meanwhile; a call that did not come through the
// door is refused for the same line. Both are still held to their
// deadline.
func TestAdmissionDoorAppliesTheTarget(t *testing.T) {
	a := newAdmission(1, 1<<30, 0, 100*time.Millisecond)
	a.held[0] = 40 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	holding, err := a.admit(ctx, 1<<10)
	if err != nil {
		t.Fatal(err)
	}
	defer holding()
	doorCtx, err := a.early(ctx)
	if err != nil {
		t.Fatalf("the door refused a call expecting 80 ms with a 100 ms target: %v", err)
	}
	// Two calls joined the line while its request was read: it now
	// expects 3 × 40 ms, past the target.
	queueSmall(a, 2)

	if _, err := a.admit(ctx, 1<<10); !errors.Is(err, rpcerr.ErrOverloaded) {
		t.Errorf("a call not let in by the door, expecting 160 ms (2 in line, 1 in intake, itself): %v, want OVERLOADED", err)
	}

	waiting, stop := context.WithCancel(doorCtx)
	done := make(chan error, 1)
	go func() {
		r, err := a.admit(waiting, 1<<10)
		if err == nil {
			r()
		}
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for a.queued() != 3 {
		if time.Now().After(deadline) {
			stop()
			t.Fatalf("the call let in by the door was not queued: %v", <-done)
		}
		time.Sleep(time.Millisecond)
	}
	stop()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the queued call, its caller gone: %v, want its end", err)
	}

	// Its deadline still bounds it: with 50 ms left it is refused at once.
	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelShort()
	shortDoor := context.WithValue(short, intakeKey{}, &intakeToken{a: a})
	a.mu.Lock()
	a.intake++
	a.mu.Unlock()
	if _, err := a.admit(shortDoor, 1<<10); !errors.Is(err, rpcerr.ErrOverloaded) {
		t.Errorf("a call let in with 50 ms left, expecting 120 ms: %v, want OVERLOADED", err)
	}
}
