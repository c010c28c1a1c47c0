package rollout

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Statuser reports the staged rollouts of the serving policy revision;
// [Controller] is one. The server reads it for RolloutStatus, for
// ExplainPolicy (ExplainPolicyResponse.rollout) and for the console.
type Statuser interface {
	// Status lists every staged rule of the serving revision.
	Status() *assigndv1.RolloutStatusResponse
	// RuleStatus reports one rule; nil when it has no steps.
	RuleStatus(rule string) *assigndv1.RolloutRuleState
}

// Service implements assigndv1.RolloutServiceServer.
type Service struct {
	assigndv1.UnimplementedRolloutServiceServer
	rollouts Statuser
}

// NewService reports r's rollouts; r may be nil (the server drives none:
// RolloutStatus is UNIMPLEMENTED).
func NewService(r Statuser) *Service { return &Service{rollouts: r} }

// RolloutStatus lists the serving revision's staged rules.
func (s *Service) RolloutStatus(context.Context, *assigndv1.RolloutStatusRequest) (*assigndv1.RolloutStatusResponse, error) {
	if s.rollouts == nil {
		return nil, status.Error(codes.Unimplemented, "this server drives no staged rollouts")
	}
	return s.rollouts.Status(), nil
}
