package server

import (
	"context"
	"testing"
)

// TestWouldWait: a call would wait while the slots are taken, and one
// that could never be admitted counts as waiting too.
func TestWouldWait(t *testing.T) {
	a := newAdmission(1, 1<<30, 0, 0)
	if a.wouldWait(1 << 20) {
		t.Fatal("a free slot: would wait")
	}
	if !a.wouldWait(1 << 40) {
		t.Error("an estimate over the budget: would not wait")
	}
	tk, err := a.ticketFor(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.acquire(context.Background(), tk); err != nil {
		t.Fatal(err)
	}
	if !a.wouldWait(1 << 20) {
		t.Error("the only slot taken: would not wait")
	}
	a.release(tk)
	if a.wouldWait(1 << 20) {
		t.Error("the slot released: would wait")
	}
}
