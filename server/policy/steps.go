package policy

import (
	"fmt"
	"math"
	"time"

	"github.com/assignd/assignd/server/selection"
)

// Staged rollouts: a rule's rollout may list steps, each a percentage held
// for a while, and a gate that must hold on the groups already moved
// before the next step serves. The policy only declares them; the step a
// rule is at is agreed among replicas by server/rollout, which hands the
// Source a [StepView] to serve from. Without a view (Policy.Select, a
// preview) a staged rule serves its first step.

// OnFail values: what a failing gate does.
const (
	// OnFailHalt keeps the rule at its step's percentage and stops it
	// there (the default).
	OnFailHalt = "halt"
	// OnFailRollback makes the rule serve no group.
	OnFailRollback = "rollback"
)

// RolloutStep is one step of a staged rollout.
type RolloutStep struct {
	// BasisPoints is the step's percentage in hundredths.
	BasisPoints int
	// Hold is how long the step serves before its gate is checked for
	// the next; 0 for the last step without a final watch.
	Hold time.Duration
}

// Percent is the step's percentage.
func (s RolloutStep) Percent() float64 { return float64(s.BasisPoints) / 100 }

// Gate is what must hold on the groups a staged rule serves before it
// advances. A nil limit is not checked.
type Gate struct {
	// MinGroups is how many groups (counted from trusted decisions) the
	// rule must have served in the step before it may advance.
	MinGroups int
	// MaxMovedRatio caps a decision's moved partitions over the group's
	// partitions.
	MaxMovedRatio *float64
	// MaxWithheldRatio caps a decision's withheld partitions over the
	// group's partitions.
	MaxWithheldRatio *float64
	// MaxFollowupsPerRebalance caps the follow-up rounds of one
	// rebalance (consecutive decisions requiring a follow-up).
	MaxFollowupsPerRebalance *int
	// MaxImbalance caps a decision's imbalance (largest minus smallest
	// member partition count).
	MaxImbalance *int
	// OnFail is OnFailHalt or OnFailRollback.
	OnFail string
}

// StagedRule is a rule with rollout steps, as server/rollout drives it.
type StagedRule struct {
	Rule  string
	Steps []RolloutStep
	// Gate is nil when the rule advances on time alone.
	Gate *Gate
}

// StagedRules lists the policy's rules with rollout steps, in rule order.
func (p *Policy) StagedRules() []StagedRule {
	var out []StagedRule
	for _, r := range p.rules {
		if r.steps != nil {
			out = append(out, StagedRule{Rule: r.name, Steps: r.steps, Gate: r.gate})
		}
	}
	return out
}

// HasBindings reports whether the policy binds any group to callers.
func (p *Policy) HasBindings() bool { return len(p.bindings) > 0 }

// Trusted reports whether a decision's caller may lead the group under
// the policy's bindings: the group is covered by a binding and the caller
// is one of its callers. Without bindings every caller is trusted (a
// staged rollout's status warns about it). A gate counts only trusted
// decisions, so that a client that may not lead a group cannot move a
// rollout with made-up requests.
func (p *Policy) Trusted(groupID string, caller selection.Caller) bool {
	if len(p.bindings) == 0 {
		return true
	}
	b, err := p.authorize(groupID, caller)
	return err == nil && b != ""
}

// StepView is the agreed state of a revision's staged rules, which a
// Source serves from (see [Source.SetSteps]).
type StepView struct {
	// Revision is the policy revision the view is for; a Source serving
	// another revision ignores it.
	Revision string
	// Started is when the revision's rollouts started, as agreed; a
	// Selection reports it (Selection.RolloutStarted).
	Started time.Time
	// Rules maps a staged rule's name to what it serves.
	Rules map[string]StepState
}

// StepState is what one staged rule serves: BasisPoints until SwitchAt,
// then NextBasisPoints (a zero SwitchAt: no switch pending). -1 serves no
// group (rolled back).
type StepState struct {
	Step, NextStep               int
	BasisPoints, NextBasisPoints int
	SwitchAt                     time.Time
}

// At returns the step and basis points served at now.
func (s StepState) At(now time.Time) (step, bp int) {
	if !s.SwitchAt.IsZero() && !now.Before(s.SwitchAt) {
		return s.NextStep, s.NextBasisPoints
	}
	return s.Step, s.BasisPoints
}

// percentBP validates a percentage and converts it to basis points.
func percentBP(field string, p float64, add func(field, format string, args ...any)) (int, bool) {
	if math.IsNaN(p) || p < 0 || p > 100 {
		add(field, "%v is outside 0..100", p)
		return 0, false
	}
	bp := math.Round(p * 100)
	if math.Abs(p*100-bp) > 1e-6 {
		add(field, "%v has more than two decimals; buckets are hundredths of a percent", p)
		return 0, false
	}
	return int(bp), true
}

// maxHold bounds a step's hold: a typo of "600h" for "600s" should be
// caught, and no rollout needs a step of more than 30 days.
const maxHold = 30 * 24 * time.Hour

func (c *compiler) compileSteps(r *rule, s *rolloutSpec, add func(field, format string, args ...any)) {
	if s.Percent != nil {
		add("rollout.percent", "write percent or steps, not both (steps give each stage its percent)")
	}
	if len(s.Steps) == 0 {
		add("rollout.steps", "a staged rollout needs steps, e.g. [{percent: 1, hold: 1h}, {percent: 100}]")
		return
	}
	r.steps = make([]RolloutStep, len(s.Steps))
	prev := -1
	for i, st := range s.Steps {
		field := fmt.Sprintf("rollout.steps[%d]", i)
		last := i == len(s.Steps)-1
		if st.Percent == nil {
			add(field, "a step needs percent")
		} else if bp, ok := percentBP(field+".percent", *st.Percent, add); ok {
			if bp <= prev {
				add(field+".percent", "%s is not above the step before (%s); steps only ever add groups", percentString(bp), percentString(prev))
			}
			r.steps[i].BasisPoints, prev = bp, bp
		}
		switch {
		case st.Hold == "" && !last:
			add(field, "a step before the last needs hold, how long it serves before the gate is checked (e.g. 30m, 6h)")
		case st.Hold != "":
			d, err := time.ParseDuration(st.Hold)
			switch {
			case err != nil:
				add(field+".hold", "%q is not a duration (write e.g. 30s, 90m, 6h)", st.Hold)
			case d <= 0 || d > maxHold:
				add(field+".hold", "%s is not between 0 and %s", st.Hold, "720h")
			default:
				r.steps[i].Hold = d
			}
		}
	}
	r.basisPoints = r.steps[0].BasisPoints
	if s.Gate != nil {
		r.gate = compileGate(s.Gate, add)
	}
}

func compileGate(g *gateSpec, add func(field, format string, args ...any)) *Gate {
	out := &Gate{OnFail: OnFailHalt, MaxMovedRatio: g.MaxMovedRatio, MaxWithheldRatio: g.MaxWithheldRatio,
		MaxFollowupsPerRebalance: g.MaxFollowupsPerRebalance, MaxImbalance: g.MaxImbalance}
	if g.MinGroups == nil && g.MaxMovedRatio == nil && g.MaxWithheldRatio == nil && g.MaxFollowupsPerRebalance == nil && g.MaxImbalance == nil {
		add("rollout.gate", "a gate needs min_groups or a limit (max_moved_ratio, max_withheld_ratio, max_followups_per_rebalance, max_imbalance)")
	}
	if g.MinGroups != nil {
		if *g.MinGroups < 0 {
			add("rollout.gate.min_groups", "%d is negative", *g.MinGroups)
		}
		out.MinGroups = *g.MinGroups
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"max_moved_ratio", g.MaxMovedRatio}, {"max_withheld_ratio", g.MaxWithheldRatio}} {
		if f.v != nil && !(*f.v >= 0 && *f.v <= 1) {
			add("rollout.gate."+f.name, "%v is not a ratio from 0 to 1 (0.05 is 5%% of the group's partitions)", *f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    *int
	}{{"max_followups_per_rebalance", g.MaxFollowupsPerRebalance}, {"max_imbalance", g.MaxImbalance}} {
		if f.v != nil && *f.v < 0 {
			add("rollout.gate."+f.name, "%d is negative", *f.v)
		}
	}
	switch g.OnFail {
	case "":
	case OnFailHalt, OnFailRollback:
		out.OnFail = g.OnFail
	default:
		add("rollout.gate.on_fail", "%q is neither %q nor %q", g.OnFail, OnFailHalt, OnFailRollback)
	}
	return out
}
