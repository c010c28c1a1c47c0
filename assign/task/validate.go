package task

import (
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

var invalid = runner.Invalid

func memberID(m *Member) string { return m.ID }

// validate checks what Run cannot read past: ids, counts and settings.
func validate(g *Group) error {
	if err := runner.CheckMembers(g.Members, MaxMembers, memberID); err != nil {
		return err
	}
	for _, m := range g.Members {
		if m.Process == "" {
			return invalid(m.ID, "process_id", "empty")
		}
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
