package console

import (
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/selection"
)

// Option configures a Handler. Options are sealed: only this package
// defines them.
type Option interface{ apply(*config) }

type config struct {
	explainer selection.Explainer
	rollouts  func() *assigndv1.RolloutStatusResponse
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithExplainer shows, on each group page, what the serving policy does
// for the group now (rule, assignor, parameters, shadow and why), asked
// with the group's latest protocol name and caller. Default: none; the
// page shows the rule and revision each decision recorded.
func WithExplainer(e selection.Explainer) Option {
	return optionFunc(func(c *config) { c.explainer = e })
}

// WithRollouts shows, on the fleet page, the staged rollouts of the
// serving policy (step, percent, halts), from status. Default: none.
func WithRollouts(status func() *assigndv1.RolloutStatusResponse) Option {
	return optionFunc(func(c *config) { c.rollouts = status })
}
