package rollout

import (
	"fmt"
	"slices"
	"strings"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
)

// Measure names, as the gate's fields are written in a policy file.
const (
	MeasureMovedRatio    = "max_moved_ratio"
	MeasureWithheldRatio = "max_withheld_ratio"
	MeasureFollowups     = "max_followups_per_rebalance"
	MeasureImbalance     = "max_imbalance"
)

// Verdict is a gate's outcome on one step.
type Verdict struct {
	// Groups is how many groups the rule served in the step, counted from
	// trusted decisions; Untrusted how many more only untrusted callers
	// requested (not counted).
	Groups, Untrusted int
	// Failures lists each group failing a measure, by group then measure.
	Failures []*assigndv1.RolloutFailure
	// Enough reports whether Groups reaches the gate's min_groups.
	Enough bool
}

// Failed reports whether a measure failed.
func (v Verdict) Failed() bool { return len(v.Failures) > 0 }

// Summary says the outcome in words.
func (v Verdict) Summary(min int) string {
	if v.Failed() {
		return describeFailures(v.Failures)
	}
	s := "gate holds on " + groups(v.Groups, "trusted group")
	if !v.Enough {
		s = fmt.Sprintf("waiting: %d of %d trusted groups", v.Groups, min)
	}
	if v.Untrusted > 0 {
		s += fmt.Sprintf(" (%s only untrusted callers requested, not counted)", groups(v.Untrusted, "group"))
	}
	return s
}

// describeFailures names the failing measures and groups, briefly.
func describeFailures(fs []*assigndv1.RolloutFailure) string {
	byMeasure := map[string][]string{}
	var measures []string
	for _, f := range fs {
		if _, ok := byMeasure[f.GetMeasure()]; !ok {
			measures = append(measures, f.GetMeasure())
		}
		byMeasure[f.GetMeasure()] = append(byMeasure[f.GetMeasure()], f.GetGroupId())
	}
	slices.Sort(measures)
	parts := make([]string, 0, len(measures))
	for _, m := range measures {
		gs := byMeasure[m]
		list := strings.Join(gs[:min(len(gs), 5)], ", ")
		if len(gs) > 5 {
			list += fmt.Sprintf(" and %d more", len(gs)-5)
		}
		parts = append(parts, fmt.Sprintf("%s failed on %s (%s)", m, groups(len(gs), "group"), list))
	}
	return "gate failed: " + strings.Join(parts, "; ")
}

// maxFailures caps the failures a verdict carries (the record stays small).
const maxFailures = 20

// Step names the step of a rollout a gate judges.
type Step struct {
	// Index is the step, 0-based.
	Index int
	// Started is when the revision's rollouts started, as agreed (the
	// first SERVING record); Since is when the step began serving.
	Started, Since time.Time
}

// Served reports whether d, a decision of the rule and revision, was
// served in the step. A decision that records its step
// (Decision.rollout_step) is judged by it alone: it counts in the step
// that admitted the group, whatever its time, so that one served just
// before a switch is not counted in the new step; when it records the
// rollout's start, that must be this rollout's too. A decision without
// the field (from a replica that predates it) is judged by its time: made
// at or after the step began.
func (s Step) Served(d *assigndv1.Decision) bool {
	if n := d.GetRolloutStep(); n > 0 {
		if int(n) != s.Index+1 {
			return false
		}
		st := d.GetRolloutStarted()
		return st == nil || s.Started.IsZero() || st.AsTime().Equal(s.Started)
	}
	return !d.GetTime().AsTime().Before(s.Since)
}

// Evaluate runs a gate on the groups a rule of p served in step (see
// [Step.Served]). Only decisions whose caller p trusts count. Each
// decision of the rule in the step is compared with the shadow run of the
// same generation where there is one, else with the group's decisions
// before its first decision under the rule; a measure fails when the
// decision exceeds the limit and that baseline (a group that was as bad
// before is not the rollout's doing).
func Evaluate(p *policy.Policy, rule string, g *policy.Gate, step Step, groups []history.RuleGroup) Verdict {
	var v Verdict
	rev := p.Revision()
	for _, rg := range groups {
		var under, before []*assigndv1.Decision // oldest first
		untrusted := false
		for i := len(rg.Decisions) - 1; i >= 0; i-- {
			d := rg.Decisions[i]
			mine := d.GetPolicyRule() == rule && d.GetPolicyRevision() == rev
			if !p.Trusted(rg.ID, callerOf(d)) {
				if mine && step.Served(d) {
					untrusted = true
				}
				continue
			}
			switch {
			case mine && step.Served(d):
				under = append(under, d)
			case !mine && len(under) == 0:
				before = append(before, d)
			}
		}
		if len(under) == 0 {
			if untrusted {
				v.Untrusted++
			}
			continue
		}
		v.Groups++
		if g == nil {
			continue
		}
		v.Failures = append(v.Failures, groupFailures(rg, g, under, before)...)
	}
	if len(v.Failures) > maxFailures {
		v.Failures = v.Failures[:maxFailures]
	}
	v.Enough = g == nil || v.Groups >= g.MinGroups
	return v
}

func callerOf(d *assigndv1.Decision) selection.Caller {
	c := d.GetCaller()
	return selection.Caller{Subject: c.GetSubject(), CommonName: c.GetCommonName()}
}

// measure reads one figure of a decision.
type measure struct {
	name  string
	limit float64
	value func(d *assigndv1.Decision) float64
}

// shareOfGroup is n over the group's partitions: those assigned this
// round and those withheld until revoked (a decision's partitions count
// only the first).
func shareOfGroup(n int32, d *assigndv1.Decision) float64 {
	of := d.GetPartitions() + d.GetWithheld()
	if d.GetGroupType() == assigndv1.GroupType_GROUP_TYPE_STREAMS {
		of = d.GetTasks()
	}
	if of <= 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// movedOf is what a decision moved: partitions, or in a streams group
// active tasks (a standby that moves interrupts no processing).
func movedOf(d *assigndv1.Decision) int32 {
	if d.GetGroupType() == assigndv1.GroupType_GROUP_TYPE_STREAMS {
		return d.GetActiveMoved()
	}
	return d.GetMoved()
}

// groups is "1 group" or "n groups".
func groups(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func gateMeasures(g *policy.Gate) []measure {
	var ms []measure
	if g.MaxMovedRatio != nil {
		ms = append(ms, measure{MeasureMovedRatio, *g.MaxMovedRatio, func(d *assigndv1.Decision) float64 { return shareOfGroup(movedOf(d), d) }})
	}
	if g.MaxWithheldRatio != nil {
		ms = append(ms, measure{MeasureWithheldRatio, *g.MaxWithheldRatio, func(d *assigndv1.Decision) float64 { return shareOfGroup(d.GetWithheld(), d) }})
	}
	if g.MaxImbalance != nil {
		ms = append(ms, measure{MeasureImbalance, float64(*g.MaxImbalance), func(d *assigndv1.Decision) float64 { return float64(d.GetImbalance()) }})
	}
	return ms
}

// groupFailures checks one group's decisions under the rule (oldest
// first) against the gate.
func groupFailures(rg history.RuleGroup, g *policy.Gate, under, before []*assigndv1.Decision) []*assigndv1.RolloutFailure {
	var out []*assigndv1.RolloutFailure
	for _, m := range gateMeasures(g) {
		prior := -1.0
		for _, d := range before {
			prior = max(prior, m.value(d))
		}
		var worst *assigndv1.RolloutFailure
		for _, d := range under {
			x := m.value(d)
			base := prior
			if sh := shadowOf(rg.Shadows, d); sh != nil {
				base = m.value(sh)
			}
			if x > m.limit && x > base && (worst == nil || x > worst.Value) {
				worst = &assigndv1.RolloutFailure{GroupId: rg.ID, Measure: m.name, Value: x, Limit: m.limit, Baseline: base}
			}
		}
		if worst != nil {
			out = append(out, worst)
		}
	}
	if g.MaxFollowupsPerRebalance != nil {
		limit := *g.MaxFollowupsPerRebalance
		x, base := followupChain(under), -1
		if len(before) > 0 {
			base = followupChain(before)
		}
		if x > limit && x > base {
			out = append(out, &assigndv1.RolloutFailure{GroupId: rg.ID, Measure: MeasureFollowups, Value: float64(x), Limit: float64(limit), Baseline: float64(base)})
		}
	}
	return out
}

// shadowOf finds the shadow run of the decision's generation and rule.
func shadowOf(shadows []*assigndv1.Decision, d *assigndv1.Decision) *assigndv1.Decision {
	for _, s := range shadows {
		if s.GetGenerationId() == d.GetGenerationId() && s.GetPolicyRule() == d.GetPolicyRule() && s.GetPolicyRevision() == d.GetPolicyRevision() {
			return s
		}
	}
	return nil
}

// followupChain is the longest run of consecutive decisions (oldest
// first) that required a follow-up: the follow-up rounds of one
// rebalance.
func followupChain(ds []*assigndv1.Decision) int {
	best, run := 0, 0
	for _, d := range ds {
		if d.GetFollowupRequired() {
			run++
			best = max(best, run)
		} else {
			run = 0
		}
	}
	return best
}
