package server

import (
	"context"

	"github.com/assignd/assignd/assign/share"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/request"
)

// AssignShare computes one share group's assignment (KIP-932; the
// broker's ShareGroupPartitionAssignor, group.share.assignors). The steps
// are AssignTasks': the engine's size limits, admission (by
// [request.EstimateShareBytes]), decoding, and the engine, which
// validates and stops when the call ends. The assignor is the request's,
// or [request.DefaultShareAssignor]. Every error goes through
// rpcerr.ToStatus.
func (s *service) AssignShare(ctx context.Context, req *assigndv1.AssignShareRequest) (*assigndv1.AssignShareResponse, error) {
	return withStatus(ctx, req, s.assignShare)
}

func (s *service) assignShare(ctx context.Context, req *assigndv1.AssignShareRequest) (*assigndv1.AssignShareResponse, error) {
	rep := reportFrom(ctx).begin(req.GetGroupId(), len(req.GetMembers()), "share")
	if err := request.ShareLimits(req); err != nil {
		return nil, err
	}
	ctx, done, err := s.admitGroupCall(ctx, request.EstimateShareBytes(req, requestBytes(ctx)))
	if err != nil {
		return nil, err
	}
	defer done()

	in, err := request.DecodeShare(req)
	if err != nil {
		return nil, err
	}
	rep.taskAssignor = share.Ref(in.Assignor)
	res, took, err := runGroupCall(ctx, in.EngineError, func() (*share.Result, error) {
		return share.Run(in.Assignor, in.Group, share.WithContext(ctx))
	})
	if err != nil {
		return nil, err
	}
	rep.ok = true
	rep.moved = res.Stats.Removed
	rep.warnings = len(res.Warnings)
	if s.history != nil {
		rep.noteShareDecision(ctx, req, in.Group, res, took, callerFromContext(ctx))
	}
	return shareResponse(res), nil
}

// shareResponse converts the share assignor's plan.
func shareResponse(res *share.Result) *assigndv1.AssignShareResponse {
	out := &assigndv1.AssignShareResponse{
		Assignor:    res.Assignor,
		Assignments: make([]*assigndv1.ShareMemberAssignment, len(res.Assignments)),
		Pairs:       int32(res.Stats.Pairs),
		Kept:        int32(res.Stats.Kept),
		Added:       int32(res.Stats.Added),
		Removed:     int32(res.Stats.Removed),
		Warnings:    res.Warnings,
		GroupType:   assigndv1.GroupType_GROUP_TYPE_SHARE,
	}
	for i, a := range res.Assignments {
		ps := make([]*assigndv1.SharePartitions, len(a.Partitions))
		for j, tp := range a.Partitions {
			ps[j] = &assigndv1.SharePartitions{Topic: tp.Topic, Partitions: tp.Partitions}
		}
		out.Assignments[i] = &assigndv1.ShareMemberAssignment{MemberId: a.Member, Partitions: ps}
	}
	return out
}
