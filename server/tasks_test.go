package server_test

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign/task"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

// tasksRequest turns a task group into an AssignTasks request.
func tasksRequest(g *task.Group) *assigndv1.AssignTasksRequest {
	req := &assigndv1.AssignTasksRequest{
		GroupId:                 "streams-app",
		GroupType:               assigndv1.GroupType_GROUP_TYPE_STREAMS,
		NumStandbyReplicas:      int32(g.NumStandbys),
		RackAwareAssignmentTags: g.RackTags,
		NumWarmupReplicas:       int32(g.NumWarmups),
		AcceptableRecoveryLag:   g.AcceptableLag,
	}
	for _, s := range g.Subtopologies {
		req.Subtopologies = append(req.Subtopologies, &assigndv1.Subtopology{Id: s.ID, PartitionCount: s.Partitions, Stateful: s.Stateful})
	}
	out := func(ts []task.TaskID) []*assigndv1.StreamsTask {
		var o []*assigndv1.StreamsTask
		for _, t := range ts {
			o = append(o, &assigndv1.StreamsTask{SubtopologyId: t.Subtopology, Partition: t.Partition})
		}
		return o
	}
	for _, m := range g.Members {
		pm := &assigndv1.StreamsMember{MemberId: m.ID, ProcessId: m.Process, ClientTags: m.Tags,
			ActiveTasks: out(m.Active), StandbyTasks: out(m.Standby), WarmupTasks: out(m.Warmup)}
		if m.Rack != "" {
			pm.RackId = proto.String(m.Rack)
		}
		for t, lag := range m.Lags {
			pm.Lags = append(pm.Lags, &assigndv1.TaskLag{Task: out([]task.TaskID{t})[0], Lag: lag})
		}
		req.Members = append(req.Members, pm)
	}
	return req
}

// tasksResult reads a response back into the engine's terms, for
// task.Check. Reasons are matched by name, so that the API's and the
// engine's names cannot drift apart.
func tasksResult(t *testing.T, resp *assigndv1.AssignTasksResponse) *task.Result {
	t.Helper()
	in := func(ts []*assigndv1.StreamsTask) []task.TaskID {
		var o []task.TaskID
		for _, x := range ts {
			o = append(o, task.TaskID{Subtopology: x.GetSubtopologyId(), Partition: x.GetPartition()})
		}
		return o
	}
	reasons := map[string]task.Reason{}
	for r := task.ReasonNone; r.String() != "unknown"; r++ {
		reasons[r.String()] = r
	}
	res := &task.Result{Assignor: resp.GetAssignor(), FollowupRequired: resp.GetFollowupRequired(), Warnings: resp.GetWarnings()}
	for _, a := range resp.GetAssignments() {
		res.Assignments = append(res.Assignments, task.Assignment{Member: a.GetMemberId(),
			Active: in(a.GetActiveTasks()), Standby: in(a.GetStandbyTasks()), Warmup: in(a.GetWarmupTasks())})
	}
	for _, mv := range resp.GetMoves() {
		name := strings.ToLower(strings.TrimPrefix(mv.GetReason().String(), "TASK_MOVE_REASON_"))
		r, ok := reasons[name]
		if !ok {
			t.Fatalf("move reason %s has no engine reason", mv.GetReason())
		}
		res.Moves = append(res.Moves, task.Move{Task: in([]*assigndv1.StreamsTask{mv.GetTask()})[0], From: mv.GetFromMemberId(), To: mv.GetToMemberId(), Reason: r})
	}
	return res
}

// streamsGroup is three processes of two threads each, one of them new,
// over a stateless and a stateful subtopology of six tasks, one standby.
func streamsGroup() *task.Group {
	ts := func(sub string, ps ...int32) []task.TaskID {
		var o []task.TaskID
		for _, p := range ps {
			o = append(o, task.TaskID{Subtopology: sub, Partition: p})
		}
		return o
	}
	return &task.Group{
		NumStandbys:   1,
		Subtopologies: []task.Subtopology{{ID: "0", Partitions: 6}, {ID: "1", Partitions: 6, Stateful: true}},
		Members: []task.Member{
			{ID: "a1", Process: "A", Active: append(ts("0", 0, 1, 2), ts("1", 0, 1, 2)...), Standby: ts("1", 3)},
			{ID: "a2", Process: "A", Rack: "r1"},
			{ID: "b1", Process: "B", Active: append(ts("0", 3, 4, 5), ts("1", 3, 4, 5)...), Standby: ts("1", 0, 1, 2)},
			{ID: "b2", Process: "B", Rack: "r2"},
			{ID: "c1", Process: "C", Tags: map[string]string{"zone": "z3"}},
			{ID: "c2", Process: "C"},
		},
	}
}

func TestAssignTasksRoundTrip(t *testing.T) {
	ts := startServer(t, nil)
	g := streamsGroup()
	resp, err := ts.client.AssignTasks(callCtx(t), tasksRequest(g))
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Check(g, tasksResult(t, resp)); err != nil {
		t.Fatalf("plan breaks an invariant: %v\n%v", err, resp)
	}
	if got, want := resp.GetAssignor(), task.Ref(task.Sticky()); got != want {
		t.Errorf("assignor %q, want %q", got, want)
	}
	if resp.GetGroupType() != assigndv1.GroupType_GROUP_TYPE_STREAMS || len(resp.GetAssignments()) != len(g.Members) {
		t.Errorf("group type %s, %d assignments", resp.GetGroupType(), len(resp.GetAssignments()))
	}
	// The new process C takes actives, so something moves, with reasons.
	if resp.GetMoveCount() == 0 || len(resp.GetMoves()) != int(resp.GetMoveCount()) {
		t.Errorf("%d moves listed of %d", len(resp.GetMoves()), resp.GetMoveCount())
	}
	for _, mv := range resp.GetMoves() {
		if mv.GetReason() == assigndv1.TaskMoveReason_TASK_MOVE_REASON_UNSPECIFIED {
			t.Errorf("move without a reason: %v", mv)
		}
	}
	lines := ts.logs.lines(t, "finished call")
	var found bool
	for _, l := range lines {
		if l["grpc.method"] == "AssignTasks" {
			found = l["group_type"] == "streams" && l["assignor"] == "sticky@1" && l["group"] == "streams-app"
		}
	}
	if !found {
		t.Errorf("no call log line with group_type, assignor and group: %v", lines)
	}
}

func TestAssignTasksMoveDetailLimit(t *testing.T) {
	ts := startServer(t, nil)
	req := tasksRequest(streamsGroup())
	req.MoveDetailLimit = 1
	resp, err := ts.client.AssignTasks(callCtx(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetMoves()) != 1 || resp.GetMoveCount() < 2 {
		t.Errorf("%d moves listed of %d, want 1 of several", len(resp.GetMoves()), resp.GetMoveCount())
	}
}

// The same request gives the same bytes, call after call (the engine's
// maps are never iterated into the answer).
func TestAssignTasksDeterministic(t *testing.T) {
	ts := startServer(t, nil)
	req := tasksRequest(streamsGroup())
	var first []byte
	for i := range 5 {
		resp, err := ts.client.AssignTasks(callCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatalf("call %d answered differently", i)
		}
	}
}

func TestAssignTasksRejectsBadInput(t *testing.T) {
	ts := startServer(t, nil)
	for _, tc := range []struct {
		name   string
		edit   func(*assigndv1.AssignTasksRequest)
		code   codes.Code
		field  string
		member string
		reason assigndv1.ErrorReason
	}{
		{"share group", func(r *assigndv1.AssignTasksRequest) { r.GroupType = assigndv1.GroupType_GROUP_TYPE_SHARE },
			codes.InvalidArgument, "group_type", "", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"unknown assignor", func(r *assigndv1.AssignTasksRequest) { r.Assignor = "balanced@1" },
			codes.InvalidArgument, "assignor", "", assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME},
		{"unknown version", func(r *assigndv1.AssignTasksRequest) { r.Assignor = "sticky@9" },
			codes.InvalidArgument, "assignor", "", assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME},
		{"bad version", func(r *assigndv1.AssignTasksRequest) { r.Assignor = "sticky@x" },
			codes.InvalidArgument, "assignor", "", assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME},
		{"empty member id", func(r *assigndv1.AssignTasksRequest) { r.Members[2].MemberId = "" },
			codes.InvalidArgument, "members[2].member_id", "", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"duplicate member id", func(r *assigndv1.AssignTasksRequest) { r.Members[3].MemberId = "a1" },
			codes.InvalidArgument, "members[3].member_id", "a1", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"no process", func(r *assigndv1.AssignTasksRequest) { r.Members[4].ProcessId = "" },
			codes.InvalidArgument, "members[4].process_id", "c1", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"task without subtopology", func(r *assigndv1.AssignTasksRequest) { r.Members[0].StandbyTasks[0].SubtopologyId = "" },
			codes.InvalidArgument, "members[0].standby_tasks[0].subtopology_id", "a1", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"lag without task", func(r *assigndv1.AssignTasksRequest) { r.Members[1].Lags = []*assigndv1.TaskLag{{Lag: 3}} },
			codes.InvalidArgument, "members[1].lags[0].task", "a2", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"negative lag", func(r *assigndv1.AssignTasksRequest) {
			r.Members[1].Lags = []*assigndv1.TaskLag{{Task: &assigndv1.StreamsTask{SubtopologyId: "1"}, Lag: -1}}
		}, codes.InvalidArgument, "members[1].lags[0].lag", "a2", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"lag twice", func(r *assigndv1.AssignTasksRequest) {
			l := &assigndv1.TaskLag{Task: &assigndv1.StreamsTask{SubtopologyId: "1"}}
			r.Members[1].Lags = []*assigndv1.TaskLag{l, l}
		}, codes.InvalidArgument, "members[1].lags[1].task", "a2", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"subtopology twice", func(r *assigndv1.AssignTasksRequest) { r.Subtopologies[1].Id = "0" },
			codes.InvalidArgument, "subtopologies[1].id", "", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"negative partition count", func(r *assigndv1.AssignTasksRequest) { r.Subtopologies[0].PartitionCount = -1 },
			codes.InvalidArgument, "subtopologies[0].partition_count", "", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"negative standbys", func(r *assigndv1.AssignTasksRequest) { r.NumStandbyReplicas = -1 },
			codes.InvalidArgument, "num_standby_replicas", "", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"negative recovery lag", func(r *assigndv1.AssignTasksRequest) { r.AcceptableRecoveryLag = -1 },
			codes.InvalidArgument, "acceptable_recovery_lag", "", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"negative move limit", func(r *assigndv1.AssignTasksRequest) { r.MoveDetailLimit = -1 },
			codes.InvalidArgument, "move_detail_limit", "", assigndv1.ErrorReason_ERROR_REASON_INVALID_GROUP},
		{"too many tasks", func(r *assigndv1.AssignTasksRequest) { r.Subtopologies[0].PartitionCount = task.MaxTasks },
			codes.ResourceExhausted, "", "", assigndv1.ErrorReason_ERROR_REASON_LIMIT_EXCEEDED},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tasksRequest(streamsGroup())
			tc.edit(req)
			_, err := ts.client.AssignTasks(callCtx(t), req)
			checkRefused(t, err, tc.code, tc.field, tc.member, tc.reason)
		})
	}
}

// AssignTasks is admitted against the memory budget Assign calls share:
// a group whose estimate exceeds what large calls may hold is refused
// with the limit named, before anything is decoded.
func TestAssignTasksAdmittedAgainstMemoryBudget(t *testing.T) {
	ts := startServer(t, nil, server.WithMemoryBudget(server.MinMemoryBudget))
	small := tasksRequest(streamsGroup())
	if _, err := ts.client.AssignTasks(callCtx(t), small); err != nil {
		t.Fatalf("a small group is refused: %v", err)
	}
	large := tasksRequest(streamsGroup())
	large.Subtopologies[1].PartitionCount = 100_000
	_, err := ts.client.AssignTasks(callCtx(t), large)
	checkOverBudget(t, err)
}

// TestAssignTasksMetrics scrapes /metrics after an answered and a refused
// AssignTasks call: the duration by assignor and code, and the moves.
func TestAssignTasksMetrics(t *testing.T) {
	tel := newTelemetry(t)
	ts := startServer(t, nil, server.WithMeterProvider(tel.MeterProvider()))
	ops := serveOps(t, ts, tel)
	if _, err := ts.client.AssignTasks(callCtx(t), tasksRequest(streamsGroup())); err != nil {
		t.Fatal(err)
	}
	_, _ = ts.client.AssignTasks(callCtx(t), &assigndv1.AssignTasksRequest{Assignor: "nope"})
	checkMetrics(t, ops.URL+"/metrics",
		`assignd_assign_tasks_duration_seconds_count\{assignor="sticky@1",code="OK",.*\} 1`,
		`assignd_assign_tasks_duration_seconds_count\{assignor="none",code="InvalidArgument",reason="ERROR_REASON_UNKNOWN_PROTOCOL_NAME".*\} 1`,
		`assignd_assign_tasks_moved[a-z_]*_total\{assignor="sticky@1".*\} [1-9]`,
	)
}
