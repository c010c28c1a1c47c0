package kgoassign

import (
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/testbed/shimtest"
)

// With the client's own timeout turned off, the balancer still bounds the
// call itself: a hung assignd makes the leader fall back, never stall.
func TestRemoteIsBoundedEvenWithoutClientTimeout(t *testing.T) {
	c := shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Block: true}), client.WithTimeout(0))
	for _, tc := range []struct {
		name string
		opts []Option
		want time.Duration // the deadline the call must run under
	}{
		{"default", nil, client.DefaultTimeout},
		{"explicit", []Option{WithTimeout(200 * time.Millisecond)}, 200 * time.Millisecond},
		{"zero selects the default", []Option{WithTimeout(0)}, client.DefaultTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := New(c, "range", tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, _, err = b.remote(&input{})
			if err == nil {
				t.Fatal("a hung assignd answered")
			}
			// The proxy never answers, so only the call's own deadline ends
			// it: DEADLINE_EXCEEDED, no sooner than the bound. The upper
			// check is loose (a busy CI machine schedules late) but still
			// tells the bound apart from a much longer one.
			if code := status.Code(err); code != codes.DeadlineExceeded {
				t.Fatalf("remote ended with %v (%v), want DeadlineExceeded", code, err)
			}
			if took := time.Since(start); took < tc.want || took > tc.want+10*time.Second {
				t.Fatalf("remote took %v, want it bounded by its %v deadline", took, tc.want)
			}
		})
	}
}

// The fallback is never left unbounded either.
func TestFallbackTimeoutOption(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
		want time.Duration
	}{
		{"default", nil, client.DefaultFallbackTimeout},
		{"explicit", []Option{WithFallbackTimeout(time.Second)}, time.Second},
		{"zero selects the default", []Option{WithFallbackTimeout(0)}, client.DefaultFallbackTimeout},
		{"negative selects the default", []Option{WithFallbackTimeout(-time.Second)}, client.DefaultFallbackTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(nil, "range", tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			if s.cfg.fallback != tc.want {
				t.Fatalf("fallback bound %s, want %s", s.cfg.fallback, tc.want)
			}
		})
	}
}
