package task_test

import (
	"fmt"
	"testing"

	"github.com/assignd/assignd/assign/task"
)

// scaleOut is a steady group of procs processes of four threads each,
// with subs stateful subtopologies of parts tasks and two standbys, that
// one new process joins.
func scaleOut(b *testing.B, procs, subs int, parts int32) *task.Group {
	g := &task.Group{NumStandbys: 2, NumWarmups: 2, AcceptableLag: 100, RackTags: []string{"zone"}}
	for s := range subs {
		g.Subtopologies = append(g.Subtopologies, task.Subtopology{ID: fmt.Sprint(s), Partitions: parts, Stateful: true})
	}
	for p := range procs {
		for th := range 4 {
			g.Members = append(g.Members, task.Member{ID: fmt.Sprintf("m%03d-%d", p, th), Process: fmt.Sprint("p", p),
				Tags: map[string]string{"zone": fmt.Sprint("z", p%3)}})
		}
	}
	g = next(g, run(b, g))
	for th := range 4 {
		g.Members = append(g.Members, task.Member{ID: fmt.Sprintf("new-%d", th), Process: "new", Tags: map[string]string{"zone": "z0"}})
	}
	return g
}

// BenchmarkScaleOut reports, beside the time, the actives and standbys
// that move, the warm-ups placed and the actives that wait for one, when
// a process joins.
func BenchmarkScaleOut(b *testing.B) {
	for _, size := range []struct {
		procs, subs int
		parts       int32
	}{{4, 4, 16}, {32, 8, 64}, {100, 10, 256}} {
		g := scaleOut(b, size.procs, size.subs, size.parts)
		b.Run(fmt.Sprintf("procs=%d/tasks=%d", size.procs, size.subs*int(size.parts)), func(b *testing.B) {
			var r *task.Result
			for b.Loop() {
				r = run(b, g)
			}
			var actives, standbys, warmups, waiting float64
			for _, mv := range r.Moves {
				switch {
				case mv.Reason == task.ReasonWarmup:
					warmups++
				case mv.Reason == task.ReasonWaiting:
					waiting++
				case mv.Kind == task.KindActive:
					actives++
				case mv.From != "":
					standbys++
				}
			}
			b.ReportMetric(actives, "actives-moved")
			b.ReportMetric(standbys, "standbys-moved")
			b.ReportMetric(warmups, "warmups")
			b.ReportMetric(waiting, "waiting")
		})
	}
}
