package server

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestOSReturnerDebounced: calls ending close together push the return
// back; after the last, memory is returned memoryReturns times, then no
// more.
func TestOSReturnerDebounced(t *testing.T) {
	var frees atomic.Int32
	r := &osReturner{delay: 200 * time.Millisecond, free: func() { frees.Add(1) }}
	defer r.stop()
	for range 5 {
		r.schedule()
		time.Sleep(2 * time.Millisecond)
	}
	for deadline := time.Now().Add(5 * time.Second); frees.Load() < memoryReturns && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(400 * time.Millisecond) // time for more returns, were they wrongly repeated
	if got := frees.Load(); got != memoryReturns {
		t.Errorf("memory returned %d times after a burst, want %d", got, memoryReturns)
	}
}
