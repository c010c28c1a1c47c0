package task_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/task"
)

// run runs sticky@1 on g and fails t on an error or a broken invariant.
func run(t testing.TB, g *task.Group) *task.Result {
	t.Helper()
	return assigntest.MustPlan(t, g, func(g *task.Group) (*task.Result, error) { return task.Run(task.Sticky(), g) }, task.Check)
}

func tasks(sub string, ps ...int32) []task.TaskID {
	var out []task.TaskID
	for _, p := range ps {
		out = append(out, task.TaskID{Subtopology: sub, Partition: p})
	}
	return out
}

func of(r *task.Result, member string) task.Assignment {
	for _, a := range r.Assignments {
		if a.Member == member {
			return a
		}
	}
	return task.Assignment{}
}

// next is the group of the next rebalance: every member reports what r
// gave it.
func next(g *task.Group, r *task.Result) *task.Group {
	h := *g
	h.Members = slices.Clone(g.Members)
	for i := range h.Members {
		a := of(r, h.Members[i].ID)
		h.Members[i].Active, h.Members[i].Standby, h.Members[i].Warmup = a.Active, a.Standby, a.Warmup
	}
	return &h
}

var counting = []task.Subtopology{{ID: "0", Partitions: 4}, {ID: "1", Partitions: 4, Stateful: true}}

func TestStickyTables(t *testing.T) {
	for _, tc := range []struct {
		name  string
		group task.Group
		check func(t *testing.T, r *task.Result)
	}{{
		name: "first assignment: balanced, standbys on the other process",
		group: task.Group{Subtopologies: counting, NumStandbys: 1, Members: []task.Member{
			{ID: "a", Process: "p1"}, {ID: "b", Process: "p2"}}},
		check: func(t *testing.T, r *task.Result) {
			if n, m := len(of(r, "a").Active), len(of(r, "b").Active); n != 4 || m != 4 {
				t.Errorf("actives %d and %d, want 4 and 4", n, m)
			}
			if n := len(of(r, "a").Standby) + len(of(r, "b").Standby); n != 4 {
				t.Errorf("%d standbys, want one per stateful task (4)", n)
			}
		},
	}, {
		name: "two threads of one process: no standby there, a warning",
		group: task.Group{Subtopologies: counting, NumStandbys: 1, Members: []task.Member{
			{ID: "a", Process: "p1"}, {ID: "b", Process: "p1"}}},
		check: func(t *testing.T, r *task.Result) {
			if n := len(of(r, "a").Standby) + len(of(r, "b").Standby); n != 0 {
				t.Errorf("%d standbys on the active's process", n)
			}
			if len(r.Warnings) != 1 {
				t.Errorf("warnings %q, want one", r.Warnings)
			}
		},
	}, {
		name: "sticky: a steady group moves nothing",
		group: task.Group{Subtopologies: counting, NumStandbys: 1, Members: []task.Member{
			{ID: "a", Process: "p1", Active: append(tasks("0", 0, 1), tasks("1", 0, 1)...), Standby: tasks("1", 2, 3)},
			{ID: "b", Process: "p2", Active: append(tasks("0", 2, 3), tasks("1", 2, 3)...), Standby: tasks("1", 0, 1)}}},
		check: func(t *testing.T, r *task.Result) {
			if len(r.Moves) != 0 {
				t.Errorf("moves %+v", r.Moves)
			}
		},
	}, {
		name: "owner gone: its tasks go to the standby's process",
		group: task.Group{Subtopologies: []task.Subtopology{{ID: "1", Partitions: 2, Stateful: true}}, NumStandbys: 1, Members: []task.Member{
			{ID: "a", Process: "p1", Standby: tasks("1", 1)},
			{ID: "c", Process: "p3"}}},
		check: func(t *testing.T, r *task.Result) {
			if got := of(r, "a").Active; !slices.Equal(got, tasks("1", 1)) {
				t.Errorf("a's actives %v: want 1_1, whose standby it held", got)
			}
		},
	}, {
		name: "a newcomer that is not caught up warms up; the owner keeps the task",
		group: task.Group{Subtopologies: []task.Subtopology{{ID: "1", Partitions: 2, Stateful: true}}, NumWarmups: 2, AcceptableLag: 100,
			Members: []task.Member{
				{ID: "a", Process: "p1", Active: tasks("1", 0, 1)},
				{ID: "b", Process: "p2"}}},
		check: func(t *testing.T, r *task.Result) {
			if len(of(r, "a").Active) != 2 || len(of(r, "b").Warmup) != 1 || !r.FollowupRequired {
				t.Errorf("plan %+v, followup %v: want a to keep both and b to warm one up", r.Assignments, r.FollowupRequired)
			}
			if len(r.Moves) != 1 || r.Moves[0].Reason != task.ReasonWarmup {
				t.Errorf("moves %+v, want one warm-up", r.Moves)
			}
		},
	}, {
		name: "a caught-up newcomer takes the task at once",
		group: task.Group{Subtopologies: []task.Subtopology{{ID: "1", Partitions: 2, Stateful: true}}, NumWarmups: 2, AcceptableLag: 100,
			Members: []task.Member{
				{ID: "a", Process: "p1", Active: tasks("1", 0, 1)},
				{ID: "b", Process: "p2", Lags: map[task.TaskID]int64{{Subtopology: "1", Partition: 0}: 40}}}},
		check: func(t *testing.T, r *task.Result) {
			if !slices.Equal(of(r, "b").Active, tasks("1", 0)) || len(of(r, "b").Warmup) != 0 {
				t.Errorf("b %+v: want 1_0 active, no warm-up", of(r, "b"))
			}
			if len(r.Moves) != 1 || r.Moves[0].Reason != task.ReasonBalance {
				t.Errorf("moves %+v", r.Moves)
			}
		},
	}, {
		name: "rack tags: the standby goes to another zone where one exists",
		group: task.Group{Subtopologies: []task.Subtopology{{ID: "1", Partitions: 1, Stateful: true}}, NumStandbys: 1, RackTags: []string{"zone"},
			Members: []task.Member{
				{ID: "a", Process: "p1", Tags: map[string]string{"zone": "z1"}, Active: tasks("1", 0)},
				{ID: "b", Process: "p2", Tags: map[string]string{"zone": "z1"}},
				{ID: "c", Process: "p3", Tags: map[string]string{"zone": "z2"}}}},
		check: func(t *testing.T, r *task.Result) {
			if !slices.Equal(of(r, "c").Standby, tasks("1", 0)) {
				t.Errorf("plan %+v: want the standby on c (zone z2)", r.Assignments)
			}
		},
	}, {
		name: "rack tags: a kept standby in the active's zone moves to another zone",
		group: task.Group{Subtopologies: []task.Subtopology{{ID: "1", Partitions: 1, Stateful: true}}, NumStandbys: 1, RackTags: []string{"zone"},
			Members: []task.Member{
				{ID: "a", Process: "p1", Tags: map[string]string{"zone": "z1"}, Active: tasks("1", 0)},
				{ID: "b", Process: "p2", Tags: map[string]string{"zone": "z1"}, Standby: tasks("1", 0)},
				{ID: "c", Process: "p3", Tags: map[string]string{"zone": "z2"}}}},
		check: func(t *testing.T, r *task.Result) {
			want := []task.Move{{Task: tasks("1", 0)[0], Kind: task.KindStandby, From: "b", To: "c", Reason: task.ReasonRackTags}}
			if !slices.Equal(r.Moves, want) {
				t.Errorf("moves %+v, want %+v", r.Moves, want)
			}
		},
	}, {
		name:  "no members: an empty plan",
		group: task.Group{Subtopologies: counting, NumStandbys: 1},
		check: func(t *testing.T, r *task.Result) {
			if len(r.Assignments) != 0 {
				t.Errorf("assignments %+v", r.Assignments)
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, run(t, &tc.group)) })
	}
}

// A warm-up that has caught up by the next rebalance takes the active.
func TestStickyWarmupThenMove(t *testing.T) {
	g := &task.Group{Subtopologies: []task.Subtopology{{ID: "1", Partitions: 2, Stateful: true}}, NumWarmups: 1, AcceptableLag: 10,
		Members: []task.Member{{ID: "a", Process: "p1", Active: tasks("1", 0, 1)}, {ID: "b", Process: "p2"}}}
	r := run(t, g)
	w := of(r, "b").Warmup
	if len(w) != 1 {
		t.Fatalf("b's warm-ups %v, want one", w)
	}
	h := next(g, r)
	h.Members[1].Lags = map[task.TaskID]int64{w[0]: 3}
	r2 := run(t, h)
	if !slices.Equal(of(r2, "b").Active, w) || len(of(r2, "b").Warmup) != 0 || r2.FollowupRequired {
		t.Errorf("second round %+v: want b to run %v", r2.Assignments, w)
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name          string
		group         task.Group
		member, field string
	}{
		{"empty id", task.Group{Members: []task.Member{{Process: "p"}}}, "", "members[0].member_id"},
		{"twice", task.Group{Members: []task.Member{{ID: "a", Process: "p"}, {ID: "a", Process: "p"}}}, "a", "member_id"},
		{"no process", task.Group{Members: []task.Member{{ID: "a"}}}, "a", "process_id"},
		{"negative lag", task.Group{Members: []task.Member{{ID: "a", Process: "p", Lags: map[task.TaskID]int64{{Subtopology: "0"}: -1}}}}, "a", "lags"},
		{"subtopology twice", task.Group{Subtopologies: []task.Subtopology{{ID: "0"}, {ID: "0"}}}, "", "subtopologies[1].id"},
		{"negative partitions", task.Group{Subtopologies: []task.Subtopology{{ID: "0", Partitions: -1}}}, "", "subtopologies[0].partitions"},
		{"too many tasks", task.Group{Subtopologies: []task.Subtopology{{ID: "0", Partitions: task.MaxTasks}, {ID: "1", Partitions: 1}}}, "", "subtopologies[1].partitions"},
		{"negative standbys", task.Group{NumStandbys: -1}, "", "num_standby_replicas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := task.Run(task.Sticky(), &tc.group)
			var ie *assign.InputError
			if !errors.As(err, &ie) || !errors.Is(err, assign.ErrInvalidGroup) || ie.Member != tc.member || ie.Field != tc.field {
				t.Fatalf("err %v, want an InputError for member %q field %q", err, tc.member, tc.field)
			}
		})
	}
}

func TestRunStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := &task.Group{Subtopologies: counting, Members: []task.Member{{ID: "a", Process: "p"}}}
	if _, err := task.Run(task.Sticky(), g, task.WithContext(ctx)); !errors.Is(err, assign.ErrStopped) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want ErrStopped and Canceled", err)
	}
}

func TestLookup(t *testing.T) {
	a, ok := task.Lookup(task.NameSticky, 0)
	if !ok || task.Ref(a) != "sticky@1" {
		t.Fatalf("Lookup(sticky, 0) = %v, %v", a, ok)
	}
	if _, ok := task.Lookup(task.NameSticky, 2); ok {
		t.Fatal("sticky@2 should not exist")
	}
	if got := task.Assignors(); len(got) != 1 || task.Ref(got[0]) != "sticky@1" {
		t.Fatalf("Assignors() = %v", got)
	}
}

func TestRunStopsInsideThePlan(t *testing.T) {
	g := &task.Group{Subtopologies: []task.Subtopology{{ID: "0", Partitions: 500, Stateful: true}}, NumStandbys: 2}
	for i := range 50 {
		g.Members = append(g.Members, task.Member{ID: fmt.Sprint("m", i), Process: fmt.Sprint("p", i%10)})
	}
	ctx := assigntest.EndingContext()
	if r, err := task.Run(task.Sticky(), g, task.WithContext(ctx)); !errors.Is(err, assign.ErrStopped) || r != nil {
		t.Fatalf("Run = %v, %v; want ErrStopped", r, err)
	}
}
