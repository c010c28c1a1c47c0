package assign_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/assignd/assignd/assign"
)

// stopInput is a large group for BenchmarkStopLatency.
type stopInput struct {
	name string
	a    assign.Assignor
	g    func() *assign.Group
}

var stopInputs = []stopInput{
	// The 52-byte request: one topic of 10,000,000 partitions.
	{"range-10M", assign.Range(), func() *assign.Group {
		g := uniformGroup(1, 10_000_000, 100, nil)
		g.Protocol = assign.Eager
		return g
	}},
	// 1,000 members settled on 100 topics × 10,000 partitions, 100 join.
	{"cooperative-sticky-1M-join", assign.CooperativeSticky(), func() *assign.Group {
		g := uniformGroup(100, 10_000, 1000, nil)
		joined := uniformGroup(100, 10_000, 1100, nil)
		joined.Members = append(owning(g, mustRun(g), 1).Members, joined.Members[1000:]...)
		return joined
	}},
	// The burst scale-out: 10,000 members on t0 and one of t1, t2
	// (1,000,000 partitions); member 0 owns 100,000 of t0 at generation 5,
	// the others are new (BenchmarkScaleOut's group).
	{"scale-out-10k", assign.CooperativeSticky(), func() *assign.Group { return scaleOut(10_000, 1, 100_000, 1_000_000) }},
}

// BenchmarkStopLatency measures how long Run takes to return after its
// context's deadline passes, on large groups, with deadlines spread over
// the run (up to its first two seconds): without best effort (stop-ms, the
// time to the ErrStopped error) and with it (besteffort-ms, the time to a
// valid plan, which includes finishing placement); p50 is the median, max
// the worst. The figures are wall time, so a busy machine inflates them;
// cpu-ms is the process's CPU time over the same interval (0 where it is
// not known), which a busy machine does not inflate. full-ms is the run's
// time without a deadline (capped at 2 s). Run:
//
//	go test ./assign -run '^$' -bench StopLatency -benchtime 1x
func BenchmarkStopLatency(b *testing.B) {
	const offsets = 9
	for _, in := range stopInputs {
		g := in.g()
		full := fullTime(b, in.a, g)
		for _, best := range []bool{false, true} {
			name := in.name + "/stop"
			if best {
				name = in.name + "/best-effort"
			}
			b.Run(name, func(b *testing.B) {
				var lat, cpu []time.Duration
				for b.Loop() {
					for i := range offsets {
						d := full * time.Duration(2*i+1) / (2 * offsets)
						if l, c, stopped := stopLatency(b, in.a, g, d, best); stopped {
							lat, cpu = append(lat, l), append(cpu, c)
						}
					}
				}
				if len(lat) == 0 {
					b.Fatal("no run was stopped")
				}
				slices.Sort(lat)
				slices.Sort(cpu)
				ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
				unit := "stop-ms"
				if best {
					unit = "besteffort-ms"
				}
				b.ReportMetric(ms(lat[len(lat)/2]), "p50-"+unit)
				b.ReportMetric(ms(lat[len(lat)-1]), "max-"+unit)
				b.ReportMetric(ms(cpu[len(cpu)/2]), "p50-cpu-"+unit)
				b.ReportMetric(ms(cpu[len(cpu)-1]), "max-cpu-"+unit)
				b.ReportMetric(ms(full), "full-ms")
			})
		}
	}
}

// fullTime is how long a run of a on g takes, at most 2 s.
func fullTime(b *testing.B, a assign.Assignor, g *assign.Group) time.Duration {
	const most = 2 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), most)
	defer cancel()
	start := time.Now()
	_, err := assign.Run(a, g, assign.WithContext(ctx))
	if errors.Is(err, assign.ErrStopped) {
		return most
	}
	if err != nil {
		b.Fatal(err)
	}
	return time.Since(start)
}

// stopLatency runs a on g with a deadline d from now and returns how long
// after the deadline Run returned, in wall time and in the process's CPU
// time, and whether the context ended first.
func stopLatency(b *testing.B, a assign.Assignor, g *assign.Group, d time.Duration, best bool) (wall, cpu time.Duration, stopped bool) {
	deadline := time.Now().Add(d)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	// The CPU clock is read when the context ends: by a goroutine of the
	// context's own, which the runtime starts right after the deadline.
	cpuAtDeadline := make(chan time.Duration, 1)
	context.AfterFunc(ctx, func() { cpuAtDeadline <- processCPU() })
	r, err := assign.Run(a, g, assign.WithContext(ctx), assign.WithBestEffort(best))
	late, cpuEnd := time.Since(deadline), processCPU()
	switch {
	case best && err != nil:
		b.Fatal(err)
	case best:
		if !slices.Contains(r.Warnings, assign.CutShortWarning) && ctx.Err() == nil {
			return 0, 0, false
		}
	case err == nil:
		return 0, 0, false // finished before the deadline
	case !errors.Is(err, context.DeadlineExceeded):
		b.Fatal(fmt.Errorf("want a deadline error, got %w", err))
	}
	<-ctx.Done()
	return late, max(cpuEnd-<-cpuAtDeadline, 0), late > 0
}

// BenchmarkPollCost runs cooperative-sticky on BenchmarkCooperativeSticky's
// S, U and A groups without a context and with one that never ends, in the
// same run: the difference is what polling costs. Run:
//
//	go test ./assign -run '^$' -bench PollCost -benchtime 20x
func BenchmarkPollCost(b *testing.B) {
	for _, name := range []string{"S", "U", "A"} {
		s := benchScenario(name)
		for _, live := range []bool{false, true} {
			label := name + "/no-context"
			var opts []assign.Option
			if live {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				label, opts = name+"/context", []assign.Option{assign.WithContext(ctx)}
			}
			b.Run(label, func(b *testing.B) {
				for b.Loop() {
					if _, err := assign.Run(assign.CooperativeSticky(), s.group, opts...); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
