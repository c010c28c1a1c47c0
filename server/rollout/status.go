package rollout

import (
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/policy"
)

// Warnings a status may carry.
const (
	warnNoBindings = "the policy has no bindings: gates count every caller's decisions, so any client can sway them; bind the groups to their leaders' identities"
	warnNoHistory  = "assignd keeps no history (--history-decisions 0): gates see no groups"
)

// Status reports the staged rollouts of the serving revision, in rule
// order.
func (c *Controller) Status() *assigndv1.RolloutStatusResponse {
	p := c.src.Policy()
	now := c.cfg.now()
	resp := &assigndv1.RolloutStatusResponse{Revision: p.Revision()}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sr := range p.StagedRules() {
		resp.Rules = append(resp.Rules, c.ruleStatus(p, sr, now))
	}
	return resp
}

// RuleStatus reports one staged rule of the serving revision; nil when
// the rule has no steps.
func (c *Controller) RuleStatus(rule string) *assigndv1.RolloutRuleState {
	p := c.src.Policy()
	now := c.cfg.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, sr := range p.StagedRules() {
		if sr.Rule == rule {
			return c.ruleStatus(p, sr, now)
		}
	}
	return nil
}

// ruleStatus builds a rule's status under c.mu.
func (c *Controller) ruleStatus(p *policy.Policy, sr policy.StagedRule, now time.Time) *assigndv1.RolloutRuleState {
	rev := p.Revision()
	out := &assigndv1.RolloutRuleState{Rule: sr.Rule, Revision: rev, Steps: int32(len(sr.Steps)), Agreed: c.agreed[rev]}
	st, started := c.machine.Rule(rev, sr.Rule)
	ss := policy.StepState{BasisPoints: sr.Steps[0].BasisPoints}
	if started {
		out.StartedAt = ts(st.Since)
		if s, ok := c.machine.Started(rev); ok {
			out.StartedAt = ts(s)
		}
		ss = stepState(sr, st)
	}
	step, bp := ss.Step, ss.BasisPoints
	if !ss.SwitchAt.IsZero() {
		if now.Before(ss.SwitchAt) {
			out.PendingAt, out.PendingStep = ts(ss.SwitchAt), int32(ss.NextStep)
		} else {
			step, bp = ss.NextStep, ss.NextBasisPoints
		}
	}
	out.Step = int32(step)
	if bp >= 0 {
		out.Percent = float64(bp) / 100
	}
	out.Since = ts(st.Since)
	out.Halted, out.RolledBack, out.Reason, out.Failures = st.Halted, st.RolledBack, st.Reason, cloneFailures(st.Failures)
	if e := c.evals[evalKey{rev, sr.Rule}]; e != nil {
		out.LastEvaluation = e.summary
		if !st.Halted && !st.RolledBack && e.step == st.Step {
			out.NextEvaluation = ts(e.next)
		}
	} else if started && !st.Halted && !st.RolledBack && st.Step < len(sr.Steps) && (st.Step < len(sr.Steps)-1 || sr.Steps[st.Step].Hold > 0) {
		out.NextEvaluation = ts(maxTime(now, st.Since))
	}
	if sr.Gate != nil && !p.HasBindings() {
		out.Warnings = append(out.Warnings, warnNoBindings)
	}
	if sr.Gate != nil && c.hist == nil {
		out.Warnings = append(out.Warnings, warnNoHistory)
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
