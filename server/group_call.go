package server

import "context"

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
