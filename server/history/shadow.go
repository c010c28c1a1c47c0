package history

import (
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/policy"
)

// ShadowRecorder returns the function to pass to policy.WithShadowReport
// so that s keeps each group's latest shadow comparison (see
// [Store.RecordShadow]).
func ShadowRecorder(s *Store) func(policy.ShadowReport) {
	side := func(p policy.ShadowSide) *assigndv1.ShadowSide {
		return &assigndv1.ShadowSide{Assignor: p.Assignor, Moved: int32(p.Moved), Imbalance: int32(p.Imbalance),
			FollowupRequired: p.Followup, EngineTime: durationpb.New(p.Took)}
	}
	return func(r policy.ShadowReport) {
		s.RecordShadow(&assigndv1.ShadowComparison{
			Time: timestamppb.New(r.Time), GroupId: r.Group, GenerationId: r.Generation,
			PolicyRule: r.Rule, PolicyRevision: r.Revision, Primary: side(r.Primary), Shadow: side(r.Shadow),
		})
	}
}
