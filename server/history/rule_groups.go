package history

import (
	"sort"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// RuleGroup is one group a policy rule served, with the decisions a
// staged rollout's gate reads.
type RuleGroup struct {
	ID string
	// Decisions and Shadows are the group's kept decisions and shadow-run
	// records, newest first.
	Decisions, Shadows []*assigndv1.Decision
}

// RuleGroups lists, sorted by id, the groups with a decision (not a
// shadow run's) of rule at revision for which in returns true (nil: any),
// each with all its kept decisions and shadow runs: a staged rollout's
// gate compares the rule's decisions in its step with the group's earlier
// ones and with the shadow. in runs under the Store's lock: it must only
// read the decision. RuleGroups scans every group: meant for a periodic
// evaluation, not a hot path.
func (s *Store) RuleGroups(rule, revision string, in func(*assigndv1.Decision) bool) []RuleGroup {
	var out []RuleGroup
	s.mu.Lock()
	for id, g := range s.groups {
		hit := false
		for _, d := range g.decisions {
			if d != nil && d.GetPolicyRule() == rule && d.GetPolicyRevision() == revision && (in == nil || in(d)) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		rg := RuleGroup{ID: id, Decisions: newestFirst(g.decisions, g.head, g.n)}
		if g.nshad > 0 {
			rg.Shadows = newestFirst(g.shadows, g.shadowHead, g.nshad)
		}
		out = append(out, rg)
	}
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
