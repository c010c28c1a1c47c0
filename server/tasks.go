package server

import (
	"context"
	"time"

	"github.com/assignd/assignd/assign/task"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/request"
)

// AssignTasks computes one Kafka Streams group's task assignment
// (KIP-1071; the broker's custom task assignor of KIP-1357). Steps, each
// of which can reject the request: the engine's size limits, admission
// (the slots and memory budget of Assign, by [request.EstimateTaskBytes]),
// decoding, and the engine, which validates and stops when the call ends.
// The assignor is the policy's choice for streams groups by the request's
// label ([selection.TaskSelector]), unless the request names one. Every
// error goes through rpcerr.ToStatus.
func (s *service) AssignTasks(ctx context.Context, req *assigndv1.AssignTasksRequest) (*assigndv1.AssignTasksResponse, error) {
	return withStatus(ctx, req, s.assignTasks)
}

func (s *service) assignTasks(ctx context.Context, req *assigndv1.AssignTasksRequest) (*assigndv1.AssignTasksResponse, error) {
	rep := reportFrom(ctx).begin(req.GetGroupId(), len(req.GetMembers()), "streams")
	if err := request.TaskLimits(req); err != nil {
		return nil, err
	}
	caller := callerFromContext(ctx)
	sel, err := s.selectTaskAssignor(ctx, req.GetGroupId(), caller)
	if err != nil {
		return nil, err
	}
	rep.policy, rep.binding = sel.Policy, sel.Binding
	rep.rolloutStep, rep.rolloutStarted = sel.RolloutStep, sel.RolloutStarted
	ctx, done, err := s.admitGroupCall(ctx, request.EstimateTaskBytes(req, requestBytes(ctx)))
	if err != nil {
		return nil, err
	}
	defer done()

	in, err := request.DecodeTasks(req)
	if err != nil {
		return nil, err
	}
	a := sel.Assignor
	if in.Assignor != nil {
		// The request's own choice: no rule chose it, and no rollout
		// step served it.
		a, rep.policy, rep.rolloutStep, rep.rolloutStarted = in.Assignor, request.PolicyPinned, 0, time.Time{}
	}
	rep.taskAssignor = task.Ref(a)
	res, took, err := runGroupCall(ctx, in.EngineError, func() (*task.Result, error) {
		return task.Run(a, in.Group, task.WithContext(ctx))
	})
	if err != nil {
		return nil, err
	}
	rep.ok = true
	rep.moved = len(res.Moves)
	rep.followup = res.FollowupRequired
	rep.warnings = len(res.Warnings)
	if s.history != nil {
		rep.noteTaskDecision(ctx, req, in.Group, res, took, caller)
	}
	resp := taskResponse(res, in.MoveDetail)
	resp.Policy = rep.policy
	return resp, nil
}

// taskResponse converts the task assignor's plan; moves up to limit, all
// when limit is 0.
func taskResponse(res *task.Result, limit int) *assigndv1.AssignTasksResponse {
	out := &assigndv1.AssignTasksResponse{
		Assignor:         res.Assignor,
		Assignments:      make([]*assigndv1.StreamsMemberAssignment, len(res.Assignments)),
		MoveCount:        int32(len(res.Moves)),
		FollowupRequired: res.FollowupRequired,
		Warnings:         res.Warnings,
		GroupType:        assigndv1.GroupType_GROUP_TYPE_STREAMS,
	}
	for i, a := range res.Assignments {
		out.Assignments[i] = &assigndv1.StreamsMemberAssignment{
			MemberId:     a.Member,
			ActiveTasks:  streamsTasks(a.Active),
			StandbyTasks: streamsTasks(a.Standby),
			WarmupTasks:  streamsTasks(a.Warmup),
		}
	}
	moves := res.Moves
	if limit > 0 && len(moves) > limit {
		moves = moves[:limit]
	}
	out.Moves = make([]*assigndv1.TaskMove, len(moves))
	for i, mv := range moves {
		kind := assigndv1.TaskReplicaKind_TASK_REPLICA_KIND_ACTIVE
		if mv.Kind == task.KindStandby {
			kind = assigndv1.TaskReplicaKind_TASK_REPLICA_KIND_STANDBY
		}
		out.Moves[i] = &assigndv1.TaskMove{
			Task: streamsTask(mv.Task), Kind: kind, FromMemberId: mv.From, ToMemberId: mv.To,
			Reason: taskMoveReason[mv.Reason],
		}
	}
	return out
}

// taskMoveReason maps the engine's reasons to the API's; the names are
// the same.
var taskMoveReason = map[task.Reason]assigndv1.TaskMoveReason{
	task.ReasonNone:          assigndv1.TaskMoveReason_TASK_MOVE_REASON_UNSPECIFIED,
	task.ReasonNoOwner:       assigndv1.TaskMoveReason_TASK_MOVE_REASON_NO_OWNER,
	task.ReasonBalance:       assigndv1.TaskMoveReason_TASK_MOVE_REASON_BALANCE,
	task.ReasonWarmup:        assigndv1.TaskMoveReason_TASK_MOVE_REASON_WARMUP,
	task.ReasonWaiting:       assigndv1.TaskMoveReason_TASK_MOVE_REASON_WAITING,
	task.ReasonActiveProcess: assigndv1.TaskMoveReason_TASK_MOVE_REASON_ACTIVE_PROCESS,
	task.ReasonRackTags:      assigndv1.TaskMoveReason_TASK_MOVE_REASON_RACK_TAGS,
	task.ReasonNotNeeded:     assigndv1.TaskMoveReason_TASK_MOVE_REASON_NOT_NEEDED,
}

func streamsTask(t task.TaskID) *assigndv1.StreamsTask {
	return &assigndv1.StreamsTask{SubtopologyId: t.Subtopology, Partition: t.Partition}
}

func streamsTasks(ts []task.TaskID) []*assigndv1.StreamsTask {
	out := make([]*assigndv1.StreamsTask, len(ts))
	for i, t := range ts {
		out[i] = streamsTask(t)
	}
	return out
}
