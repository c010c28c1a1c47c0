package task_test

import (
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/task"
)

// groupGen draws a group: up to 6 processes of 1 to 3 threads, up to 4
// subtopologies, current tasks taken from random members (some claimed
// twice, some of tasks the topology no longer has), random lags, standbys,
// warm-ups and zone tags.
func groupGen() *rapid.Generator[*task.Group] {
	return rapid.Custom(func(t *rapid.T) *task.Group {
		g := &task.Group{
			NumStandbys:   rapid.IntRange(0, 3).Draw(t, "standbys"),
			NumWarmups:    rapid.IntRange(0, 3).Draw(t, "warmups"),
			AcceptableLag: rapid.Int64Range(0, 100).Draw(t, "acceptable lag"),
		}
		if rapid.Bool().Draw(t, "zones") {
			g.RackTags = []string{"zone"}
		}
		var all []task.TaskID
		for s := range rapid.IntRange(0, 4).Draw(t, "subtopologies") {
			st := task.Subtopology{ID: fmt.Sprint(s), Partitions: rapid.Int32Range(0, 8).Draw(t, "partitions"),
				Stateful: rapid.Bool().Draw(t, "stateful")}
			g.Subtopologies = append(g.Subtopologies, st)
			for p := range st.Partitions + 1 { // one past the end: a task the topology lost
				all = append(all, task.TaskID{Subtopology: st.ID, Partition: p})
			}
		}
		pick := func(label string) []task.TaskID {
			if len(all) == 0 {
				return nil
			}
			return rapid.SliceOfNDistinct(rapid.SampledFrom(all), 0, 4, func(x task.TaskID) task.TaskID { return x }).Draw(t, label)
		}
		for p := range rapid.IntRange(0, 6).Draw(t, "processes") {
			zone := fmt.Sprint("z", rapid.IntRange(0, 2).Draw(t, "zone"))
			for th := range rapid.IntRange(1, 3).Draw(t, "threads") {
				m := task.Member{ID: fmt.Sprintf("m%d-%d", p, th), Process: fmt.Sprint("p", p), Tags: map[string]string{"zone": zone},
					Active: pick("active"), Standby: pick("standby"), Warmup: pick("warmup")}
				for _, tk := range pick("lagged") {
					if m.Lags == nil {
						m.Lags = map[task.TaskID]int64{}
					}
					m.Lags[tk] = rapid.Int64Range(0, 200).Draw(t, "lag")
				}
				g.Members = append(g.Members, m)
			}
		}
		return g
	})
}

// checkRun runs sticky@1 on g and on g with its members reversed: both
// valid by Check, and equal.
func checkRun(t *rapid.T, g *task.Group) *task.Result {
	r, err := task.Run(task.Sticky(), g)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := task.Check(g, r); err != nil {
		t.Fatalf("invariants: %v\ngroup %+v\nplan %+v", err, g, r.Assignments)
	}
	h := *g
	h.Members = rapid.Permutation(g.Members).Draw(t, "member order")
	r2, err := task.Run(task.Sticky(), &h)
	if err != nil || !reflect.DeepEqual(r, r2) {
		t.Fatalf("member order changed the plan: %+v vs %+v (%v)", r, r2, err)
	}
	return r
}

// Random groups: valid plans, the same whatever the members' order, and
// a group that rebalances again with what it was given moves no active
// (when no warm-up is pending) and ends with its warm-ups caught up.
func TestStickyProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := groupGen().Draw(t, "group")
		r := checkRun(t, g)
		h := next(g, r)
		for i := range h.Members {
			h.Members[i].Lags = nil
		}
		r2 := checkRun(t, h)
		if !r.FollowupRequired {
			for _, mv := range r2.Moves {
				if mv.Kind == task.KindActive || mv.Kind == task.KindStandby {
					t.Fatalf("steady group moved an active: %+v", mv)
				}
			}
		}
	})
}

// FuzzSticky feeds groups drawn from the fuzzer's bytes to sticky@1:
// never a panic, and a valid plan that does not depend on the members'
// order.
func FuzzSticky(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(assigntest.FuzzInput(seed, 0x7461736b73, 8*2048)) // "tasks"
	}
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) { checkRun(t, groupGen().Draw(t, "group")) }))
}
