package assign

import (
	"context"
	"fmt"
)

// stopErr returns the error of a run whose context (see [WithContext]) is
// done, or nil. It is cheap enough for phase boundaries; loops that grow
// with the input poll it every few thousand steps.
func (o *options) stopErr() error {
	if o.ctx == nil || o.ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrStopped, context.Cause(o.ctx))
}
