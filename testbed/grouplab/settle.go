package grouplab

import (
	"context"
	"fmt"
	"time"
)

// Settle waits until the group is at rest and records EventSettled:
// every running member has received an assignment in the same
// generation, every partition is owned by exactly one running member, and
// nothing happened in the group for the quiet period (so a follow-up
// rebalance would have started). Scenarios call it after each membership
// change; the analysis splits the timeline at these points.
func (l *Lab) Settle(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, why, gen := l.settled()
		if ok {
			l.tl.add(Event{Kind: EventSettled, Generation: gen, Detail: fmt.Sprintf("%d members", len(l.Live()))})
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("grouplab: the group did not settle (%s): %w", why, ctx.Err())
		case <-tick.C:
		}
	}
}

func (l *Lab) settled() (bool, string, int32) {
	events := l.tl.Events()
	r := newReplay()
	var last time.Duration
	for i := range events {
		r.apply(&events[i])
		if activity(events[i].Kind) {
			last = events[i].At
		}
	}
	live := l.Live()
	if len(live) == 0 {
		return false, "no member is running", -1
	}
	gen := int32(-1)
	names := map[string]bool{}
	for _, m := range live {
		g, ok := r.lastGen[m.name]
		if !ok {
			return false, m.name + " has no assignment yet", -1
		}
		if gen != -1 && g != gen {
			return false, fmt.Sprintf("members are in generations %d and %d", gen, g), -1
		}
		gen = g
		names[m.name] = true
	}
	for _, t := range l.topics {
		for p := range t.Partitions {
			tp := TP{Topic: t.Name, Partition: p}
			if owner, ok := r.owner[tp]; !ok || !names[owner] {
				return false, fmt.Sprintf("%s has no running owner", tp), -1
			}
		}
	}
	if quiet := time.Since(l.tl.start) - last; quiet < l.cfg.quiet {
		return false, "the group was active " + quiet.Round(time.Millisecond).String() + " ago", -1
	}
	return true, "", gen
}
