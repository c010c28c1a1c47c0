package task

import (
	"context"

	"github.com/assignd/assignd/assign/internal/runner"
)

// Option configures [Run].
type Option = runner.Option

// WithContext stops the run when ctx ends, with an error wrapping
// ErrStopped and the context's cause. By default a run cannot be stopped.
func WithContext(ctx context.Context) Option { return runner.WithContext(ctx) }

// Run validates g and, when it has members, places its replicas with a.
// Its errors are the consumer engine's ([github.com/assignd/assignd/assign]):
// an invalid group's is an *InputError wrapping ErrInvalidGroup that names
// the member and field at fault; a stopped run's wraps ErrStopped. g is
// not modified.
func Run(a Assignor, g *Group, opts ...Option) (*Result, error) { return family.Run(a, g, opts) }
