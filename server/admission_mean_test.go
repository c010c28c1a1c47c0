package server

import (
	"testing"
	"time"
)

// TestAdmissionHoldAverageIsTheMean: with a storm's mix of hold times
// (one call in 200 a hundred times longer than the rest, as a big group
// is), the average the estimate multiplies stays near their mean after
// every call, not only on average: an average kicked far above it by one
// long call refuses the calls after it for nothing.
func TestAdmissionHoldAverageIsTheMean(t *testing.T) {
	a := newAdmission(2, 1<<30, 0, 0)
	const short, long = 200 * time.Microsecond, 100 * time.Millisecond
	mean := (199*short + long) / 200
	lo, hi := time.Duration(1<<62), time.Duration(0)
	for i := range 200 * 40 {
		d := short
		if i%200 == 199 {
			d = long
		}
		a.observe(ticket{}, d)
		if i >= 200*20 { // past the start, where it begins at the first call's
			lo, hi = min(lo, a.held[0]), max(hi, a.held[0])
		}
	}
	if float64(lo) < 0.6*float64(mean) || float64(hi) > 1.5*float64(mean) {
		t.Errorf("the average ranges %s to %s about a mean of %s, want within 0.6 to 1.5 times it", lo, hi, mean)
	}
}
