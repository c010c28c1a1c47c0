package saramaassign

import (
	"testing"
	"time"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/testbed/shimtest"
)

// With the client's own timeout turned off, the strategy still bounds the
// call itself: a hung assignd makes the leader fall back, never stall.
func TestRemoteIsBoundedEvenWithoutClientTimeout(t *testing.T) {
	c := shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Block: true}), client.WithTimeout(0))
	for _, tc := range []struct {
		name string
		opts []Option
		max  time.Duration
	}{
		{"default", nil, client.DefaultTimeout + time.Second},
		{"explicit", []Option{WithTimeout(200 * time.Millisecond)}, time.Second},
		{"zero selects the default", []Option{WithTimeout(0)}, client.DefaultTimeout + time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(c, "range", tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			if _, err := s.remote(&input{group: &assign.Group{Protocol: assign.Eager}}); err == nil {
				t.Fatal("a hung assignd answered")
			}
			if took := time.Since(start); took > tc.max {
				t.Fatalf("remote took %v, want it bounded by %v", took, tc.max)
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
