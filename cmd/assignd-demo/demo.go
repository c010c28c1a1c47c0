package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/assignd/assignd/testbed/grouplab"
)

// demo is what one run does.
type demo struct {
	members    int
	partitions int
	outage     bool
	heartbeat  time.Duration
	logger     *slog.Logger
	// progress receives one line per phase while the demo runs.
	progress io.Writer
}

func defaultDemo() demo {
	return demo{members: 3, partitions: 12, outage: true, heartbeat: 200 * time.Millisecond, progress: io.Discard}
}

// run plays the demo and writes the timeline and a summary to out.
func run(ctx context.Context, out io.Writer, d demo) error {
	if d.members < 1 || d.members > 20 {
		return fmt.Errorf("-members must be 1 to 20, not %d", d.members)
	}
	if d.partitions < 1 {
		return fmt.Errorf("-partitions must be positive, not %d", d.partitions)
	}
	if d.heartbeat <= 0 {
		return fmt.Errorf("-heartbeat must be positive, not %s", d.heartbeat)
	}
	lab, err := grouplab.New(
		[]grouplab.Topic{{Name: "orders", Partitions: int32(d.partitions)}, {Name: "audit", Partitions: int32(max(1, d.partitions/3))}},
		grouplab.WithGroup("demo"), grouplab.WithLogger(d.logger),
		grouplab.WithHeartbeat(d.heartbeat), grouplab.WithQuietPeriod(3*d.heartbeat),
	)
	if err != nil {
		return err
	}
	defer lab.Close()
	tl := lab.Timeline()
	phase := func(format string, args ...any) {
		tl.Note(format, args...)
		fmt.Fprintf(d.progress, "assignd-demo: "+format+"\n", args...)
	}

	phase("kfake broker, assignd on %s and a producer are up; %d consumers join group \"demo\" one by one", lab.AssigndAddr(), d.members)
	if err := lab.StartProducing(); err != nil {
		return err
	}
	names := make([]string, d.members)
	for i := range names {
		names[i] = fmt.Sprintf("c%d", i+1)
		if err := startAndSettle(ctx, lab, names[i]); err != nil {
			return err
		}
	}

	phase("rolling restart: each consumer leaves and comes back as a new member")
	outageAt := -1
	if d.outage {
		outageAt = d.members / 2
	}
	for i, name := range names {
		if i == outageAt {
			phase("assignd stops: leaders fall back to the in-process engine")
			if err := lab.StopAssignd(ctx); err != nil {
				return err
			}
		}
		if err := restart(ctx, lab, name); err != nil {
			return err
		}
		if i == outageAt {
			phase("assignd starts again")
			if err := lab.StartAssignd(); err != nil {
				return err
			}
			if err := lab.WaitAssignd(ctx); err != nil {
				return err
			}
		}
	}

	phase("done: draining what was produced")
	if err := lab.StopProducing(ctx); err != nil {
		return err
	}
	if err := lab.Drain(ctx); err != nil {
		return err
	}
	a := lab.Analyze()
	grouplab.Render(out, tl.Events(), a)
	return summarize(out, lab, a)
}

func startAndSettle(ctx context.Context, lab *grouplab.Lab, name string) error {
	if _, err := lab.StartMember(name, grouplab.Shim); err != nil {
		return err
	}
	return lab.Settle(ctx)
}

func restart(ctx context.Context, lab *grouplab.Lab, name string) error {
	for _, m := range lab.Live() {
		if m.Name() == name {
			if err := m.Leave(ctx); err != nil {
				return err
			}
			if err := lab.Settle(ctx); err != nil {
				return err
			}
			return startAndSettle(ctx, lab, name+"'")
		}
	}
	return fmt.Errorf("no running consumer %s", name)
}

// summarize writes the totals and returns an error if any invariant broke.
func summarize(out io.Writer, lab *grouplab.Lab, a *grouplab.Analysis) error {
	var served, fallbacks, rebalances, followups int
	for _, w := range a.Windows {
		served += w.Served
		fallbacks += w.Fallbacks
		rebalances += len(w.Generations)
		followups += max(0, w.Followups())
	}
	fmt.Fprintf(out, "\n%d records produced and all consumed (%d twice); %d rebalances, %d of them cooperative follow-ups;\n",
		lab.Timeline().Produced(), a.Duplicates, rebalances, followups)
	fmt.Fprintf(out, "leaders' balances: %d by assignd, %d by the in-process fallback.\n", served, fallbacks)
	problems := a.Problems(true)
	if len(problems) == 0 {
		fmt.Fprintln(out, "No partition was ever owned by two consumers at once.")
		return nil
	}
	for _, p := range problems {
		fmt.Fprintln(out, "PROBLEM:", p)
	}
	return errors.New("the run broke an invariant; see PROBLEM lines")
}
