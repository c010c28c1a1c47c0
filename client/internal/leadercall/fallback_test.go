package leadercall_test

import (
	"testing"
	"time"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/client/internal/leadercall"
	"github.com/assignd/assignd/testbed/shimtest"
)

// TestFallbackIsBounded: a bound far too short for the group still gives
// a valid plan, promptly, and says it was cut short.
func TestFallbackIsBounded(t *testing.T) {
	shimtest.SkipLarge(t)
	a, _ := assign.Lookup(assign.NameCooperativeSticky, 0)
	g := shimtest.ScaleOutGroup(1000)
	start := time.Now()
	r, err := leadercall.RunFallback(a, g, time.Nanosecond)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("a bounded fallback failed: %v", err)
	}
	if err := assigntest.Check(g, r); err != nil {
		t.Fatalf("the bounded plan is invalid: %v", err)
	}
	if len(r.Warnings) == 0 {
		t.Fatal("a plan cut short carries no warning")
	}
	// The bound adds one linear placement of the 1,000,000 partitions,
	// well under a second; the unbounded plan took seconds before the
	// engine learnt to stop. 2 s leaves room for a loaded machine.
	if took > 2*time.Second {
		t.Fatalf("a fallback bounded by 1ns took %s", took)
	}
	t.Logf("bounded by 1ns: %s, warnings %q", took, r.Warnings)
}
