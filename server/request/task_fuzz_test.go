package request_test

import (
	"testing"

	"github.com/assignd/assignd/assign/task"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/request"
)

// FuzzDecodeTasks feeds arbitrary AssignTasks requests through the
// decoder and the engine: each is rejected with a field or limit error,
// or planned so that task.Check holds. Never a panic.
func FuzzDecodeTasks(f *testing.F) {
	st := func(sub string, p int32) *assigndv1.StreamsTask {
		return &assigndv1.StreamsTask{SubtopologyId: sub, Partition: p}
	}
	seeds := []*assigndv1.AssignTasksRequest{
		{},
		{GroupType: assigndv1.GroupType_GROUP_TYPE_SHARE},
		{Assignor: "sticky@1", NumStandbyReplicas: 1,
			Subtopologies: []*assigndv1.Subtopology{{Id: "0", PartitionCount: 4}, {Id: "1", PartitionCount: 4, Stateful: true}},
			Members: []*assigndv1.StreamsMember{
				{MemberId: "a", ProcessId: "A", ActiveTasks: []*assigndv1.StreamsTask{st("0", 0), st("1", 0)}, StandbyTasks: []*assigndv1.StreamsTask{st("1", 1)}},
				{MemberId: "b", ProcessId: "B", ClientTags: map[string]string{"zone": "z"}, Lags: []*assigndv1.TaskLag{{Task: st("1", 0), Lag: 5}}},
			}},
		{NumWarmupReplicas: 2, AcceptableRecoveryLag: 10,
			Subtopologies: []*assigndv1.Subtopology{{Id: "s", PartitionCount: 3, Stateful: true}},
			Members: []*assigndv1.StreamsMember{
				{MemberId: "a", ProcessId: "A", ActiveTasks: []*assigndv1.StreamsTask{st("s", 0), st("s", 1), st("s", 2)}},
				{MemberId: "b", ProcessId: "B", Lags: []*assigndv1.TaskLag{{Task: st("s", 0), Lag: 100}, {Task: st("s", 1)}}},
			}},
	}
	fuzzRequests(f, seeds, func(t *testing.T, req *assigndv1.AssignTasksRequest) {
		if request.TaskCount(req) > 1<<12 || len(req.GetMembers()) > 64 {
			// Large groups are the limit tests' and benchmarks'; here
			// they would only slow the search.
			return
		}
		_ = request.EstimateTaskBytes(req, 0)
		in, err := request.DecodeTasks(req)
		if !decoded(t, err) {
			return
		}
		a := in.Assignor
		if a == nil { // the policy's choice; the built-in policy's
			a = task.Sticky()
		}
		res, err := task.Run(a, in.Group)
		checkPlanned(t, err, in.EngineError, func() error { return task.Check(in.Group, res) })
	})
}
