package server

import (
	"runtime/debug"
	"sync"
	"time"
)

// DefaultMemoryReturnDelay is how long after the last large Assign call
// ends the server gives the heap's free memory back to the OS.
const DefaultMemoryReturnDelay = time.Second

// osReturner gives free heap memory back to the OS shortly after large
// calls end. Without it, a burst of large calls leaves the heap at its
// peak: the runtime collects only when allocation resumes, and its
// background scavenger returns pages over minutes, so a quiet server kept
// gigabytes resident after a burst. Large calls that follow each other
// closely push the return back (they would reuse the memory), so it runs
// at most once per delay.
type osReturner struct {
	delay time.Duration
	free  func() // debug.FreeOSMemory, or a test's counter

	mu    sync.Mutex
	timer *time.Timer
}

func newOSReturner(delay time.Duration) *osReturner {
	return &osReturner{delay: delay, free: debug.FreeOSMemory}
}

// schedule (re)arms the return for delay from now.
func (r *osReturner) schedule() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer == nil {
		r.timer = time.AfterFunc(r.delay, r.free)
		return
	}
	r.timer.Reset(r.delay)
}

// stop cancels a pending return.
func (r *osReturner) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		r.timer.Stop()
	}
}
