package rpcerr

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/assignd/assignd/assign"
)

// DeadlineReserve is how long before the caller's deadline a waiting call
// gives up, and within how long of its deadline a canceled call counts as
// past it: the caller's own timer fires first (its deadline is the
// server's less the network's delay) and grpc-go then reports a
// cancellation, but the caller gave up because time ran out.
const DeadlineReserve = 50 * time.Millisecond

// CallEnded returns why a call's context is done, as [ToStatus] maps it:
// [ErrShuttingDown], context.DeadlineExceeded or context.Canceled (one
// canceled within [DeadlineReserve] of its deadline counts as past it).
func CallEnded(ctx context.Context) error {
	cause := context.Cause(ctx)
	if errors.Is(cause, context.Canceled) && !errors.Is(cause, ErrShuttingDown) {
		if d, ok := ctx.Deadline(); ok && time.Until(d) <= DeadlineReserve {
			return context.DeadlineExceeded
		}
	}
	return cause
}

// Stopped turns an error of a run stopped by its context into the call's
// end (see [CallEnded]); other errors pass through.
func Stopped(ctx context.Context, err error) error {
	if errors.Is(err, assign.ErrStopped) && ctx.Err() != nil {
		return fmt.Errorf("%w: %w", assign.ErrStopped, CallEnded(ctx))
	}
	return err
}
