package server

import (
	"context"

	"github.com/assignd/assignd/assign"
)

// WithRunFunc replaces the engine, so that external tests can inject
// panics, slow assignments and failures. opts include
// assign.WithContext(ctx).
func WithRunFunc(run func(context.Context, assign.Assignor, *assign.Group, ...assign.Option) (*assign.Result, error)) Option {
	return withRun(run)
}
