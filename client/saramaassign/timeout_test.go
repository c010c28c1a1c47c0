package saramaassign

import (
	"testing"
	"time"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/internal/leadercall"
	"github.com/assignd/assignd/testbed/shimtest"
)

// With the client's own timeout turned off, the strategy still bounds the
// call itself: a hung assignd makes the leader fall back, never stall.
func TestRemoteIsBoundedEvenWithoutClientTimeout(t *testing.T) {
	c := shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Block: true}), client.WithTimeout(0))
	shimtest.CheckCallBound(t, WithTimeout, 800*time.Millisecond, func(opts ...Option) error {
		s, err := New(c, "range", opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.remote(&input{group: &assign.Group{Protocol: assign.Eager}})
		return err
	})
}

// The fallback is never left unbounded either.
func TestFallbackTimeoutOption(t *testing.T) {
	shimtest.CheckFallbackBound(t, WithFallbackTimeout, func(opts ...Option) time.Duration {
		return leadercall.Must(New(nil, "range", opts...)).cfg.Fallback
	})
}
