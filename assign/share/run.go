package share

import (
	"context"

	"github.com/assignd/assignd/assign/internal/runner"
)

// Option configures [Run].
type Option = runner.Option

// WithContext stops the run when ctx ends: Run then returns an error
// wrapping [assign.ErrStopped] and the context's cause. Default: the run
// cannot be stopped.
func WithContext(ctx context.Context) Option { return runner.WithContext(ctx) }

// Run validates g and computes a's plan, topic by topic. Errors are
// *[assign.InputError] values wrapping [assign.ErrInvalidGroup] that name
// the member and field at fault, or wrap [assign.ErrStopped]. Run does not
// modify g.
func Run(a Assignor, g *Group, opts ...Option) (*Result, error) { return family.Run(a, g, opts) }
