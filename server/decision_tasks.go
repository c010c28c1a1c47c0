package server

import (
	"context"
	"slices"
	"time"

	"github.com/assignd/assignd/assign/task"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/selection"
)

// taskDecisionInput is what an answered AssignTasks call leaves for its
// Decision, as decisionInput is for Assign: references, read once the
// response is written.
type taskDecisionInput struct {
	at        time.Time
	req       *assigndv1.AssignTasksRequest
	group     *task.Group
	res       *task.Result
	engine    time.Duration
	caller    selection.Caller
	userAgent string
}

// noteTaskDecision keeps what the call's Decision is built from.
func (r *callReport) noteTaskDecision(ctx context.Context, req *assigndv1.AssignTasksRequest, g *task.Group, res *task.Result, engine time.Duration, caller selection.Caller) {
	r.taskDecision = &taskDecisionInput{at: time.Now(), req: req, group: g, res: res, engine: engine, caller: caller, userAgent: userAgent(ctx)}
}

// buildTaskDecision is the record of a streams group's call
// (Decision fields 80 to 89). The history keeps no input for it, only
// its digest: a replay runs partition assignors.
func (r *callReport) buildTaskDecision(callTime time.Duration) *assigndv1.Decision {
	in := r.taskDecision
	res := in.res
	d := r.groupDecision(groupCall{at: in.at, req: in.req, groupID: in.req.GetGroupId(), groupType: assigndv1.GroupType_GROUP_TYPE_STREAMS,
		assignor: res.Assignor, engine: in.engine, caller: in.caller, userAgent: in.userAgent}, callTime)
	d.MemberCount = int32(len(res.Assignments))
	d.FollowupRequired = res.FollowupRequired
	d.TaskMoves = taskResponse(&task.Result{Moves: res.Moves}, decisionMoves).GetMoves()
	for _, s := range in.group.Subtopologies {
		d.Tasks += max(s.Partitions, 0)
	}
	procs := map[string]bool{}
	for _, m := range in.group.Members {
		procs[m.Process] = true
	}
	d.Processes = int32(len(procs))
	d.ActiveMoved, d.StandbyMoved = taskMoveCounts(res.Moves)
	d.Members, d.Imbalance, d.StandbyTasks, d.WarmupTasks = taskDecisionMembers(in.req, res, decisionMembers)
	d.Warnings = clippedWarnings(res.Warnings)
	return d
}

// taskMoveCounts counts the replicas that left a member of the group for
// another: actives held back for a warm-up stay, and a replica first
// placed, or dropped, did not move between members.
func taskMoveCounts(moves []task.Move) (active, standby int32) {
	for _, mv := range moves {
		if mv.From == "" || mv.To == "" || mv.Reason == task.ReasonWarmup || mv.Reason == task.ReasonWaiting {
			continue
		}
		if mv.Kind == task.KindStandby {
			standby++
		} else {
			active++
		}
	}
	return active, standby
}

// taskDecisionMembers lists the first members by id, and counts over all
// of them the spread of active tasks and the standby and warm-up
// replicas.
func taskDecisionMembers(req *assigndv1.AssignTasksRequest, res *task.Result, limit int) (members []*assigndv1.DecisionMember, imbalance, standbys, warmups int32) {
	byID := make(map[string]*assigndv1.StreamsMember, len(req.GetMembers()))
	for _, m := range req.GetMembers() {
		byID[m.GetMemberId()] = m
	}
	lo, hi := -1, 0
	members = make([]*assigndv1.DecisionMember, 0, min(len(res.Assignments), limit))
	for i, a := range res.Assignments { // sorted by member id
		n := len(a.Active)
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
		standbys += int32(len(a.Standby))
		warmups += int32(len(a.Warmup))
		if i >= limit {
			continue
		}
		dm := &assigndv1.DecisionMember{MemberId: a.Member, Assigned: int32(n), StandbyTasks: int32(len(a.Standby))}
		if m := byID[a.Member]; m != nil {
			dm.ProcessId, dm.GroupInstanceId, dm.Rack = m.GetProcessId(), m.GetInstanceId(), m.GetRackId()
			dm.Owned = int32(len(m.GetActiveTasks()))
		}
		members = append(members, dm)
	}
	if lo >= 0 {
		imbalance = int32(hi - lo)
	}
	return slices.Clip(members), imbalance, standbys, warmups
}
