package server

import (
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// DefaultMemoryReturnDelay is how long after the last large Assign call
// ends the server first gives the heap's free memory back to the OS.
const DefaultMemoryReturnDelay = time.Second

// memoryReturns is how many times, delay apart, the memory is returned
// after the last large call: the first return can come while gRPC still
// sends that call's response (the call's admission ends when the response
// is queued, not when it is on the wire), and buffers gRPC pools
// (sync.Pool) survive one collection.
const memoryReturns = 3

// osReturner gives free heap memory back to the OS shortly after large
// calls end. Without it, a burst of large calls leaves the heap at its
// peak: the runtime collects only when allocation resumes, and its
// background scavenger returns pages over minutes, so a quiet server kept
// gigabytes resident after a burst.
//
// It returns memory only while no large call computes: a return collects
// the whole heap twice and hands back the pages the running call is about
// to allocate again, so a return that fell in a large call cost it
// seconds (docs/performance.md#the-full-view-beside-franz-go). A large
// call admitted while returns are pending holds them off; the last large
// call to end arms them again, delay after it.
type osReturner struct {
	delay time.Duration
	free  func()

	mu        sync.Mutex
	timer     *time.Timer
	remaining int
	// active counts the large calls admitted and not yet released.
	active int
}

func newOSReturner(delay time.Duration) *osReturner {
	return &osReturner{delay: delay, free: freeOSMemory}
}

// freeOSMemory collects twice, so that what sync.Pools held before the
// first collection is gone too, and returns the free pages.
func freeOSMemory() {
	runtime.GC()
	debug.FreeOSMemory()
}

// begin notes a large call admitted; it holds pending returns off.
func (r *osReturner) begin() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.active++
	if r.timer != nil {
		r.timer.Stop()
	}
}

// end notes a large call released; the last to end arms the returns for
// delay from now.
func (r *osReturner) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active > 0 {
		r.active--
	}
	if r.active > 0 {
		return
	}
	r.remaining = memoryReturns
	if r.timer == nil {
		r.timer = time.AfterFunc(r.delay, r.fire)
		return
	}
	r.timer.Reset(r.delay)
}

func (r *osReturner) fire() {
	r.mu.Lock()
	if r.active > 0 || r.remaining <= 0 {
		// A large call began after the timer fired: its end rearms.
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	r.free()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active > 0 {
		return
	}
	if r.remaining--; r.remaining > 0 {
		r.timer.Reset(r.delay)
	}
}

// stop cancels pending returns.
func (r *osReturner) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.remaining = 0
	if r.timer != nil {
		r.timer.Stop()
	}
}

// largeRequestBytes is the wire size above which decoding a request holds
// the memory returns off: such a request is a large call ([maxSmallCall]
// counts 8 bytes of estimate per request byte), and decoding millions of
// messages before its admission takes as long as the engine.
const largeRequestBytes = maxSmallCall / 8
