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
// gigabytes resident after a burst. Large calls that follow each other
// closely push the return back (they would reuse the memory).
type osReturner struct {
	delay time.Duration
	free  func()

	mu        sync.Mutex
	timer     *time.Timer
	remaining int
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

// schedule (re)arms the returns for delay from now.
func (r *osReturner) schedule() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.remaining = memoryReturns
	if r.timer == nil {
		r.timer = time.AfterFunc(r.delay, r.fire)
		return
	}
	r.timer.Reset(r.delay)
}

func (r *osReturner) fire() {
	r.free()
	r.mu.Lock()
	defer r.mu.Unlock()
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
