package server

import "github.com/assignd/assignd/assign"

// WithRunFunc replaces assign.Run, so that external tests can inject
// panics, slow assignments and failures.
func WithRunFunc(run func(assign.Assignor, *assign.Group, ...assign.Option) (*assign.Result, error)) Option {
	return withRun(run)
}
