package history

import (
	"slices"
	"strings"

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
// ones and with the shadow. in must only read the decision. RuleGroups
// scans every group: meant for a periodic evaluation, not a hot path; it
// decodes only the groups that have a decision of rule at revision.
func (s *Store) RuleGroups(rule, revision string, in func(*assigndv1.Decision) bool) []RuleGroup {
	type candidate struct {
		id                 string
		decisions, shadows []kept
	}
	var found []candidate
	s.mu.Lock()
	for id, g := range s.groups {
		if !slices.ContainsFunc(g.decisions, func(k kept) bool {
			return k.sum != nil && k.sum.GetPolicyRule() == rule && k.sum.GetPolicyRevision() == revision
		}) {
			continue
		}
		c := candidate{id: id, decisions: newestFirst(g.decisions, g.head, g.n)}
		if g.nshad > 0 {
			c.shadows = newestFirst(g.shadows, g.shadowHead, g.nshad)
		}
		found = append(found, c)
	}
	s.mu.Unlock()
	var out []RuleGroup
	for _, c := range found {
		rg := RuleGroup{ID: c.id, Decisions: fulls(c.decisions), Shadows: fulls(c.shadows)}
		if slices.ContainsFunc(rg.Decisions, func(d *assigndv1.Decision) bool {
			return d.GetPolicyRule() == rule && d.GetPolicyRevision() == revision && (in == nil || in(d))
		}) {
			out = append(out, rg)
		}
	}
	slices.SortFunc(out, func(a, b RuleGroup) int { return strings.Compare(a.ID, b.ID) })
	return out
}
