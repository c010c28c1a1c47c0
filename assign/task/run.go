package task

import (
	"context"
	"fmt"

	"github.com/assignd/assignd/assign"
)

// Limits on one group, so that every run's work is bounded by its input:
// placing a replica scans the members, and standbys are placed at most
// 1 + [maxStandbyRounds] times, so a run is at most about
// tasks × (1 + standbys × (1 + maxStandbyRounds)) × members steps, and
// it polls its context as it goes.
const (
	MaxMembers = 10_000
	MaxTasks   = 1 << 18
)

// Option configures [Run].
type Option interface{ apply(*options) }

type options struct{ ctx context.Context }

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithContext stops the run when ctx ends: Run then returns an error
// wrapping [assign.ErrStopped] and the context's cause. Default: the run
// cannot be stopped.
func WithContext(ctx context.Context) Option { return optionFunc(func(o *options) { o.ctx = ctx }) }

// stopSignal unwinds a run whose context ended; only Run recovers it.
type stopSignal struct{}

// Run validates g and computes a's plan. Errors are *[assign.InputError]
// values wrapping [assign.ErrInvalidGroup] that name the member and field
// at fault, or wrap [assign.ErrStopped]. Run does not modify g.
func Run(a Assignor, g *Group, opts ...Option) (res *Result, err error) {
	var o options
	for _, opt := range opts {
		opt.apply(&o)
	}
	stopErr := func() error {
		if o.ctx == nil || o.ctx.Err() == nil {
			return nil
		}
		return fmt.Errorf("%w: %w", assign.ErrStopped, context.Cause(o.ctx))
	}
	if err := stopErr(); err != nil {
		return nil, err
	}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(stopSignal); !ok {
				panic(p)
			}
			res, err = nil, stopErr()
		}
	}()
	p, err := newPlanner(g)
	if err != nil {
		return nil, err
	}
	if o.ctx != nil {
		p.done = o.ctx.Done()
	}
	if len(p.members) > 0 {
		a.plan(p)
	}
	return p.result(Ref(a)), nil
}

func invalid(member, field, format string, args ...any) error {
	return &assign.InputError{Member: member, Field: field, Reason: fmt.Sprintf(format, args...), Err: assign.ErrInvalidGroup}
}

// validate checks what Run cannot read past: ids, counts and settings.
func validate(g *Group) error {
	if g == nil {
		return invalid("", "group", "missing")
	}
	if len(g.Members) > MaxMembers {
		return invalid("", "members", "%d members, more than %d", len(g.Members), MaxMembers)
	}
	ids := make(map[string]bool, len(g.Members))
	for i, m := range g.Members {
		switch {
		case m.ID == "":
			return invalid("", fmt.Sprintf("members[%d].member_id", i), "empty")
		case ids[m.ID]:
			return invalid(m.ID, "member_id", "appears twice")
		case m.Process == "":
			return invalid(m.ID, "process_id", "empty")
		}
		ids[m.ID] = true
		for t, lag := range m.Lags {
			if lag < 0 {
				return invalid(m.ID, "lags", "task %s: negative lag %d", t, lag)
			}
		}
	}
	subs := make(map[string]bool, len(g.Subtopologies))
	total := 0
	for i, s := range g.Subtopologies {
		switch {
		case s.ID == "":
			return invalid("", fmt.Sprintf("subtopologies[%d].id", i), "empty")
		case subs[s.ID]:
			return invalid("", fmt.Sprintf("subtopologies[%d].id", i), "%q appears twice", s.ID)
		case s.Partitions < 0:
			return invalid("", fmt.Sprintf("subtopologies[%d].partitions", i), "negative: %d", s.Partitions)
		}
		subs[s.ID] = true
		total += int(s.Partitions)
		if total > MaxTasks {
			return invalid("", fmt.Sprintf("subtopologies[%d].partitions", i), "more than %d tasks in all", MaxTasks)
		}
	}
	switch {
	case g.NumStandbys < 0:
		return invalid("", "num_standby_replicas", "negative: %d", g.NumStandbys)
	case g.NumWarmups < 0:
		return invalid("", "num_warmup_replicas", "negative: %d", g.NumWarmups)
	case g.AcceptableLag < 0:
		return invalid("", "acceptable_recovery_lag", "negative: %d", g.AcceptableLag)
	}
	return nil
}
