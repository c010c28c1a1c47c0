package shimtest

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/client"
)

// boundCase is one way of configuring a shim's bound: the options given
// and the bound they must select.
type boundCase[O any] struct {
	name string
	opts []O
	want time.Duration
}

// CheckCallBound checks that a shim bounds its call to assignd itself,
// whatever the client's own timeout: with no option, with WithTimeout's d
// (with) and with d = 0, which selects client.DefaultTimeout. call makes
// one call with opts to an assignd that never answers; it must end in
// DEADLINE_EXCEEDED no sooner than the bound and no later than slack
// after it.
func CheckCallBound[O any](t *testing.T, with func(time.Duration) O, slack time.Duration, call func(opts ...O) error) {
	t.Helper()
	for _, tc := range []boundCase[O]{
		{"default", nil, client.DefaultTimeout},
		{"explicit", []O{with(200 * time.Millisecond)}, 200 * time.Millisecond},
		{"zero selects the default", []O{with(0)}, client.DefaultTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			err := call(tc.opts...)
			if err == nil {
				t.Fatal("a hung assignd answered")
			}
			// Only the call's own deadline ends it. The upper check is
			// loose (a busy CI machine schedules late) but still tells the
			// bound apart from a much longer one.
			if code := status.Code(err); code != codes.DeadlineExceeded {
				t.Fatalf("remote ended with %v (%v), want DeadlineExceeded", code, err)
			}
			if took := time.Since(start); took < tc.want || took > tc.want+slack {
				t.Fatalf("remote took %v, want it bounded by its %v deadline", took, tc.want)
			}
		})
	}
}

// CheckFallbackBound checks a shim's WithFallbackTimeout (with): no
// option and d ≤ 0 select client.DefaultFallbackTimeout, any other d is
// the bound. bound is the fallback bound of a shim built with opts.
func CheckFallbackBound[O any](t *testing.T, with func(time.Duration) O, bound func(opts ...O) time.Duration) {
	t.Helper()
	for _, tc := range []boundCase[O]{
		{"default", nil, client.DefaultFallbackTimeout},
		{"explicit", []O{with(time.Second)}, time.Second},
		{"zero selects the default", []O{with(0)}, client.DefaultFallbackTimeout},
		{"negative selects the default", []O{with(-time.Second)}, client.DefaultFallbackTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := bound(tc.opts...); got != tc.want {
				t.Fatalf("fallback bound %s, want %s", got, tc.want)
			}
		})
	}
}
