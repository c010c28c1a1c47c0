package server

import (
	"context"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// WithRunFunc replaces the engine, so that external tests can inject
// panics, slow assignments and failures. opts include
// assign.WithContext(ctx).
func WithRunFunc(run func(context.Context, assign.Assignor, *assign.Group, ...assign.Option) (*assign.Result, error)) Option {
	return withRun(run)
}

// EstimateBytes exposes the memory estimate of a request.
func EstimateBytes(req *assigndv1.AssignRequest) int64 { return estimateBytes(req, 0) }
