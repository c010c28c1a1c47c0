package request

import (
	"fmt"
	"strings"

	"github.com/assignd/assignd/assign/task"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// PolicyPinned is AssignTasksResponse.policy when the request named its
// task assignor: no policy rule chose it.
const PolicyPinned = "request"

// TaskInput is an AssignTasks request decoded into the task assignor's
// input.
type TaskInput struct {
	Group *task.Group
	// Assignor is the request's assignor; nil when it names none, and the
	// policy chooses.
	Assignor task.Assignor
	// MoveDetail is how many moves the response lists; 0: all.
	MoveDetail int
}

var taskField = groupField

// TaskAssignor resolves AssignTasksRequest.assignor, "name@version" or
// "name" (version 1); "" is nil, the policy's choice.
func TaskAssignor(ref string) (task.Assignor, error) {
	if ref == "" {
		return nil, nil
	}
	return resolveRef(ref, "task", task.Lookup)
}

// TaskCount is the number of tasks of the request's subtopologies, a
// negative partition count counting as none.
func TaskCount(req *assigndv1.AssignTasksRequest) int64 {
	var tasks int64
	for _, s := range req.GetSubtopologies() {
		tasks += int64(max(s.GetPartitionCount(), 0))
	}
	return tasks
}

// TaskLimits refuses, before admission, a request larger than the task
// assignor runs: more members than [task.MaxMembers] or more tasks than
// [task.MaxTasks]. It reads counts only.
func TaskLimits(req *assigndv1.AssignTasksRequest) error {
	over := engineLimit("the task assignor's limit")
	if err := over("members", int64(len(req.GetMembers())), task.MaxMembers); err != nil {
		return err
	}
	return over("tasks", TaskCount(req), task.MaxTasks)
}

// Coefficients of [EstimateTaskBytes], in bytes: a member's engine state
// and response message; a task replica (one per task and standby) in the
// planner's tables and the response; a task listed in a member's request
// (current tasks and lags) in the decoded group; and the request's own
// bytes as decoding copies them. Set above the partition path's per-entry
// costs, not yet measured per shape as those are.
const (
	estimateTaskPerMember  = 1024
	estimateTaskPerReplica = 128
	estimateTaskPerListed  = 96
)

// EstimateTaskBytes is the memory one AssignTasks call may take, from the
// request's counts: members, tasks times (1 + standbys), tasks the
// members list, and its size. reqBytes as in [EstimateBytes].
func EstimateTaskBytes(req *assigndv1.AssignTasksRequest, reqBytes int) int64 {
	tasks, listed := TaskCount(req), int64(0)
	for _, m := range req.GetMembers() {
		listed += int64(len(m.GetActiveTasks()) + len(m.GetStandbyTasks()) + len(m.GetWarmupTasks()) + len(m.GetLags()))
	}
	replicas := tasks * (1 + int64(min(max(req.GetNumStandbyReplicas(), 0), int32(max(len(req.GetMembers()), 1)))))
	return estimateBase +
		estimateTaskPerMember*int64(len(req.GetMembers())) +
		estimateTaskPerReplica*replicas +
		estimateTaskPerListed*listed +
		requestByteCost(req, reqBytes)
}

// DecodeTasks converts an AssignTasks request into the task assignor's
// input. It checks what the engine cannot see (the group type, the
// assignor, tasks without a subtopology, a lag listed twice); ids, counts
// and settings are the engine's to check ([task.Run]), and
// [TaskInput.EngineError] names their request fields.
func DecodeTasks(req *assigndv1.AssignTasksRequest) (*TaskInput, error) {
	if err := servesGroupType(req.GetGroupType(), assigndv1.GroupType_GROUP_TYPE_STREAMS, "AssignTasks serves streams groups only"); err != nil {
		return nil, err
	}
	a, err := TaskAssignor(req.GetAssignor())
	if err != nil {
		return nil, err
	}
	if l := req.GetMoveDetailLimit(); l < 0 {
		return nil, taskField("move_detail_limit", "", "negative: %d", l)
	}
	if err := TaskLimits(req); err != nil {
		return nil, err
	}
	g := &task.Group{
		NumStandbys:   int(req.GetNumStandbyReplicas()),
		RackTags:      req.GetRackAwareAssignmentTags(),
		NumWarmups:    int(req.GetNumWarmupReplicas()),
		AcceptableLag: req.GetAcceptableRecoveryLag(),
		Subtopologies: make([]task.Subtopology, len(req.GetSubtopologies())),
		Members:       make([]task.Member, len(req.GetMembers())),
	}
	for i, s := range req.GetSubtopologies() {
		g.Subtopologies[i] = task.Subtopology{ID: s.GetId(), Partitions: s.GetPartitionCount(), Stateful: s.GetStateful()}
	}
	in := &TaskInput{Group: g, Assignor: a, MoveDetail: int(req.GetMoveDetailLimit())}
	for i, m := range req.GetMembers() {
		id := m.GetMemberId()
		tm := task.Member{ID: id, Process: m.GetProcessId(), Rack: m.GetRackId(), Tags: m.GetClientTags()}
		at := func(field string, ts []*assigndv1.StreamsTask) ([]task.TaskID, error) {
			out := make([]task.TaskID, len(ts))
			for j, t := range ts {
				if t.GetSubtopologyId() == "" {
					return nil, taskField(fmt.Sprintf("members[%d].%s[%d].subtopology_id", i, field, j), id, "empty")
				}
				out[j] = task.TaskID{Subtopology: t.GetSubtopologyId(), Partition: t.GetPartition()}
			}
			return out, nil
		}
		if tm.Active, err = at("active_tasks", m.GetActiveTasks()); err != nil {
			return nil, err
		}
		if tm.Standby, err = at("standby_tasks", m.GetStandbyTasks()); err != nil {
			return nil, err
		}
		if tm.Warmup, err = at("warmup_tasks", m.GetWarmupTasks()); err != nil {
			return nil, err
		}
		if lags := m.GetLags(); len(lags) > 0 {
			tm.Lags = make(map[task.TaskID]int64, len(lags))
			for j, l := range lags {
				f := fmt.Sprintf("members[%d].lags[%d]", i, j)
				switch t := l.GetTask(); {
				case t == nil:
					return nil, taskField(f+".task", id, "missing")
				case t.GetSubtopologyId() == "":
					return nil, taskField(f+".task.subtopology_id", id, "empty")
				default:
					k := task.TaskID{Subtopology: t.GetSubtopologyId(), Partition: t.GetPartition()}
					if _, dup := tm.Lags[k]; dup {
						return nil, taskField(f+".task", id, "task %s listed twice", k)
					}
					if l.GetLag() < 0 {
						return nil, taskField(f+".lag", id, "negative: %d", l.GetLag())
					}
					tm.Lags[k] = l.GetLag()
				}
			}
		}
		g.Members[i] = tm
	}
	return in, nil
}

// EngineError turns an error of [task.Run] on the input's group into an
// [rpcerr.FieldError] naming the request field: the engine names a member
// by id and its field by the request's name ("process_id"), so the path
// gains the member's index; "subtopologies[i].partitions" is the
// request's partition_count. Other errors pass through.
func (in *TaskInput) EngineError(err error) error {
	return engineFieldError(err, "subtopologies[", taskFieldNames, len(in.Group.Members), func(i int) string { return in.Group.Members[i].ID })
}

var taskFieldNames = strings.NewReplacer(".partitions", ".partition_count")
