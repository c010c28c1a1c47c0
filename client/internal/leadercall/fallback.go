package leadercall

import (
	"context"
	"time"

	"github.com/assignd/assignd/assign"
)

// RunFallback runs the engine in-process for a leader that assignd did
// not serve, as assignd runs it under its default policy (a's default
// options), but stopped after bound: the engine then returns the valid plan
// it has (every partition placed, balance refinements skipped) with a
// warning, and asks a cooperative group for a follow-up
// (assign.WithBestEffort), so that the group's leader is never blocked
// much beyond bound by a group too large for it. Within the bound the plan
// is the one assignd would send, byte for byte.
func RunFallback(a assign.Assignor, g *assign.Group, bound time.Duration) (*assign.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	return assign.Run(a, g, assign.WithContext(ctx), assign.WithBestEffort(true))
}
