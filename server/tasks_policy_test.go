package server_test

import (
	"testing"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/testbed/policytest"
)

// TestAssignTasksPolicyAndHistory: the policy chooses a streams group's
// task assignor by its label (a rule for streams groups only, another
// for consumer groups only), the response and the history's Decision
// name the rule, and the Decision carries the group type, the tasks and
// their moves; a request that names its assignor runs it, reported as
// "request". (TestAssignTasksRejectsBadInput covers an assignor the
// server cannot run.)
func TestAssignTasksPolicyAndHistory(t *testing.T) {
	src := policytest.Serve(t, `version: 1
rules:
  - name: consumers
    match: {group_types: [consumer], group_prefixes: [streams-]}
    assignor: cooperative-sticky@1
  - name: streams
    match: {group_types: [streams], group_prefixes: [streams-]}
    task_assignor: sticky@1
`)
	p := src.Policy()
	h, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	ts := startServer(t, src, server.WithHistory(h), server.WithExplainer(src))
	g := streamsGroup()
	for _, tt := range []struct {
		label, assignor, policy string
	}{
		{"streams-app", "", "streams/" + p.Revision()},
		{"other-app", "", "default/" + p.Revision()},
		{"pinned-app", "sticky@1", "request"},
	} {
		req := tasksRequest(g)
		req.GroupId, req.Assignor = tt.label, tt.assignor
		resp, err := ts.client.AssignTasks(callCtx(t), req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetPolicy() != tt.policy {
			t.Errorf("%s: policy %q, want %q", tt.label, resp.GetPolicy(), tt.policy)
		}
		d := waitGroup(t, assigndv1.NewGroupHistoryServiceClient(ts.conn), tt.label, 1).GetDecisions()[0]
		rule := tt.policy
		if i := len(rule) - len(p.Revision()) - 1; i > 0 && rule[i] == '/' {
			rule = rule[:i]
		}
		if d.GetGroupType() != assigndv1.GroupType_GROUP_TYPE_STREAMS || d.GetPolicyRule() != rule || d.GetAssignor() != "sticky@1" {
			t.Errorf("%s: decision of type %s, rule %q, assignor %q", tt.label, d.GetGroupType(), d.GetPolicyRule(), d.GetAssignor())
		}
		var active, standby int32
		for _, mv := range resp.GetMoves() {
			if mv.GetFromMemberId() != "" && mv.GetToMemberId() != "" {
				if mv.GetKind() == assigndv1.TaskReplicaKind_TASK_REPLICA_KIND_STANDBY {
					standby++
				} else if r := mv.GetReason(); r != assigndv1.TaskMoveReason_TASK_MOVE_REASON_WARMUP && r != assigndv1.TaskMoveReason_TASK_MOVE_REASON_WAITING {
					active++
				}
			}
		}
		if d.GetTasks() != 12 || d.GetProcesses() != 3 || d.GetMemberCount() != 6 || len(d.GetMembers()) != 6 ||
			d.GetActiveMoved() != active || d.GetStandbyMoved() != standby || len(d.GetTaskMoves()) != len(resp.GetMoves()) {
			t.Errorf("%s: decision counts tasks %d, processes %d, members %d (%d listed), moved %d+%d (want %d+%d), %d moves listed of %d",
				tt.label, d.GetTasks(), d.GetProcesses(), d.GetMemberCount(), len(d.GetMembers()), d.GetActiveMoved(), d.GetStandbyMoved(),
				active, standby, len(d.GetTaskMoves()), len(resp.GetMoves()))
		}
		if active == 0 {
			t.Errorf("%s: the new process took no active task; the test group no longer tests moves", tt.label)
		}
		var standbys int32
		for _, m := range d.GetMembers() {
			standbys += m.GetStandbyTasks()
			if m.GetProcessId() == "" {
				t.Errorf("%s: member %s without its process", tt.label, m.GetMemberId())
			}
		}
		if standbys != d.GetStandbyTasks() || standbys != 6 {
			t.Errorf("%s: %d standbys on the members, %d in the decision, want 6", tt.label, standbys, d.GetStandbyTasks())
		}
	}
	summary, err := assigndv1.NewGroupHistoryServiceClient(ts.conn).GetGroup(callCtx(t), &assigndv1.GetGroupRequest{GroupId: "streams-app"})
	if err != nil || summary.GetSummary().GetGroupType() != assigndv1.GroupType_GROUP_TYPE_STREAMS {
		t.Errorf("the group's summary: %v, %v", summary.GetSummary(), err)
	}

	// ExplainPolicy says the same for the label as a streams group.
	e, err := ts.client.ExplainPolicy(callCtx(t), &assigndv1.ExplainPolicyRequest{GroupId: "streams-app", GroupType: assigndv1.GroupType_GROUP_TYPE_STREAMS})
	if err != nil || e.GetRule() != "streams" || e.GetAssignor() != "sticky@1" {
		t.Errorf("ExplainPolicy for the streams group: %v, %v", e, err)
	}
}
