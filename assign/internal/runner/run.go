package runner

import (
	"context"
	"fmt"

	"github.com/assignd/assignd/assign"
)

// Option configures a run; each family re-exports it as its own.
type Option interface{ apply(*options) }

type options struct{ ctx context.Context }

type contextOption struct{ ctx context.Context }

func (c contextOption) apply(o *options) { o.ctx = c.ctx }

// WithContext stops the run when ctx ends.
func WithContext(ctx context.Context) Option { return contextOption{ctx} }

// pollMask makes a run poll its context every 4,096 steps.
const pollMask = 1<<12 - 1

// Poller is how a planner notices that its run's context ended: its loops
// call Poll once a step.
type Poller struct {
	done  <-chan struct{} // nil: the run cannot be stopped
	steps int
}

// stopSignal unwinds a run whose context ended; only [Run] recovers it,
// so that no loop has to thread an early return through its callers.
type stopSignal struct{}

// Poll checks the run's context every pollMask+1 steps, and unwinds the
// run when it ended.
func (p *Poller) Poll() {
	p.steps++
	if p.steps&pollMask != 0 || p.done == nil {
		return
	}
	select {
	case <-p.done:
		panic(stopSignal{})
	default:
	}
}

// Run calls plan with the poller of opts' context. When the context ends,
// before or during plan, Run returns an error wrapping [assign.ErrStopped]
// and the context's cause; otherwise it returns plan's result.
func Run[R any](opts []Option, plan func(Poller) (R, error)) (res R, err error) {
	var o options
	for _, opt := range opts {
		opt.apply(&o)
	}
	ended := func() error {
		if o.ctx == nil || o.ctx.Err() == nil {
			return nil
		}
		return fmt.Errorf("%w: %w", assign.ErrStopped, context.Cause(o.ctx))
	}
	if err := ended(); err != nil {
		return res, err
	}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stopSignal); !ok {
				panic(p)
			}
			var none R
			res, err = none, ended()
		}
	}()
	var p Poller
	if o.ctx != nil {
		p.done = o.ctx.Done()
	}
	return plan(p)
}

// Invalid is the error of a group that fails validation: an
// *[assign.InputError] wrapping [assign.ErrInvalidGroup] that names the
// member and field at fault.
func Invalid(member, field, format string, args ...any) error {
	return &assign.InputError{Member: member, Field: field, Reason: fmt.Sprintf(format, args...), Err: assign.ErrInvalidGroup}
}
