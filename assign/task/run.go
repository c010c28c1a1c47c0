package task

import (
	"context"
	"fmt"

	"github.com/assignd/assignd/assign/internal/runner"
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
type Option = runner.Option

// WithContext stops the run when ctx ends, with an error wrapping
// ErrStopped and the context's cause. By default a run cannot be stopped.
func WithContext(ctx context.Context) Option { return runner.WithContext(ctx) }

// Run validates g and, when it has members, places its replicas with a.
// Its errors are the consumer engine's ([github.com/assignd/assignd/assign]):
// an invalid group's is an *InputError wrapping ErrInvalidGroup that names
// the member and field at fault; a stopped run's wraps ErrStopped. g is
// not modified.
func Run(a Assignor, g *Group, opts ...Option) (*Result, error) {
	return runner.Run(opts, func(poll runner.Poller) (*Result, error) {
		p, err := newPlanner(g)
		if err != nil {
			return nil, err
		}
		p.Poller = poll
		if len(p.members) > 0 {
			a.plan(p)
		}
		return p.result(Ref(a)), nil
	})
}

var invalid = runner.Invalid

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
