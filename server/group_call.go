package server

import (
	"context"
	"time"

	"github.com/assignd/assignd/server/rpcerr"
)

// admitGroupCall admits a call of a group type's own RPC (AssignTasks,
// AssignShare) for bytes of the memory budget, in Assign's slots, and
// gives it a context that ends at the server's shutdown too. done releases
// both once the response is written.
func (s *service) admitGroupCall(ctx context.Context, bytes int64) (context.Context, func(), error) {
	release, err := s.admission.admit(ctx, bytes)
	if err != nil {
		return nil, nil, err
	}
	releaseLater := releaseAfterResponse(ctx, release)
	ctx, stop := s.stopOnShutdown(ctx)
	return ctx, func() { stop(); releaseLater() }, nil
}

// runGroupCall runs a group type's engine under ctx, and times it. Its
// error is the engine's, with field paths mapped by engineErr (the decoded
// input's), or the call's end when ctx ended, during the run or after.
func runGroupCall[R any](ctx context.Context, engineErr func(error) error, run func() (*R, error)) (*R, time.Duration, error) {
	start := time.Now()
	res, err := run()
	took := time.Since(start)
	if err != nil {
		return nil, took, engineErr(rpcerr.Stopped(ctx, err))
	}
	if ctx.Err() != nil {
		return nil, took, rpcerr.CallEnded(ctx)
	}
	return res, took, nil
}
