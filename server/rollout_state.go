package server

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// RolloutStatuser reports the staged rollouts of the serving policy
// revision; server/rolloutstate's Controller implements it.
type RolloutStatuser interface {
	// Status lists every staged rule of the serving revision.
	Status() *assigndv1.RolloutStatusResponse
	// RuleStatus reports one rule; nil when it has no steps.
	RuleStatus(rule string) *assigndv1.RolloutRuleState
}

// WithRolloutStatus reports staged rollouts in RolloutStatus, in
// ExplainPolicy (ExplainPolicyResponse.rollout) and on the console.
// Default: none (RolloutStatus is UNIMPLEMENTED).
func WithRolloutStatus(r RolloutStatuser) Option {
	return optionFunc(func(c *config) { c.rollouts = r })
}

// rolloutStateService implements assigndv1.RolloutStateServiceServer.
type rolloutStateService struct {
	assigndv1.UnimplementedRolloutStateServiceServer
	rollouts RolloutStatuser
}

func (s *rolloutStateService) RolloutStatus(context.Context, *assigndv1.RolloutStatusRequest) (*assigndv1.RolloutStatusResponse, error) {
	if s.rollouts == nil {
		return nil, status.Error(codes.Unimplemented, "this server drives no staged rollouts")
	}
	return s.rollouts.Status(), nil
}

// ruleRollout is the staged rollout of a rule for ExplainPolicy, nil
// without one.
func (s *service) ruleRollout(rule string) *assigndv1.RolloutRuleState {
	if s.rollouts == nil || rule == "" {
		return nil
	}
	return s.rollouts.RuleStatus(rule)
}
