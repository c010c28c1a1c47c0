package assigntest

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
)

// Fataler is what the helpers below need of *testing.T, *testing.B and
// *rapid.T (rapid.T does not implement all of testing.TB).
type Fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// MustPlan runs plan on g and fails t on an error or when check, the
// planner's invariant checker (share.Check, task.Check), finds one broken.
func MustPlan[G, R any](t Fataler, g *G, plan func(*G) (*R, error), check func(*G, *R) error) *R {
	t.Helper()
	r, err := plan(g)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := check(g, r); err != nil {
		t.Fatalf("invariants: %v\nplan: %+v", err, r)
	}
	return r
}

// EndingContext returns a context whose Done channel is closed from the
// start but whose Err is nil on its first call: a Run starts, and its
// first poll inside the plan finds it done.
func EndingContext() context.Context {
	return &endingCtx{Context: context.Background()}
}

type endingCtx struct {
	context.Context
	calls int
}

func (c *endingCtx) Err() error {
	if c.calls++; c.calls == 1 {
		return nil
	}
	return context.Canceled
}

func (c *endingCtx) Done() <-chan struct{} {
	done := make(chan struct{})
	close(done)
	return done
}

// FuzzInput expands seed into a rapid fuzz input of size bytes (rapid
// reads its input as the bit stream its generators draw from, and skips
// one it runs past the end of). salt tells one target's streams from
// another's.
func FuzzInput(seed, salt uint64, size int) []byte {
	r := rand.New(rand.NewPCG(seed, salt))
	b := make([]byte, size)
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return b
}
