package task

import (
	"errors"
	"fmt"
)

// Check returns every way r breaks the rules a plan for g must keep, or
// nil: each task active on exactly one member of g; standbys and warm-ups
// only of stateful tasks, at most g.NumStandbys and g.NumWarmups, never
// two replicas of a task on one process; active counts within one of
// each other except for actives held for warm-ups; and as many standbys
// per task as the group's processes allow. Every test of the package
// checks its plans with it; so can an oracle or a server test.
func Check(g *Group, r *Result) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	proc := map[string]string{}
	for _, m := range g.Members {
		proc[m.ID] = m.Process
	}
	procs := map[string]bool{}
	for _, p := range proc {
		procs[p] = true
	}
	tasks := map[TaskID]bool{}
	for _, s := range g.Subtopologies {
		for q := range s.Partitions {
			tasks[TaskID{s.ID, q}] = s.Stateful
		}
	}
	type replicas struct {
		active  int
		standby int
		procs   map[string]bool
	}
	seen := map[TaskID]*replicas{}
	at := func(t TaskID, member, kind string) *replicas {
		if _, ok := tasks[t]; !ok {
			bad("%s task %s of member %q is not in the topology", kind, t, member)
		}
		x := seen[t]
		if x == nil {
			x = &replicas{procs: map[string]bool{}}
			seen[t] = x
		}
		if p := proc[member]; x.procs[p] {
			bad("task %s has two replicas on process %q (the %s on member %q)", t, p, kind, member)
		} else {
			x.procs[p] = true
		}
		return x
	}
	lo, hi, warmups, members := -1, -1, 0, map[string]bool{}
	for _, a := range r.Assignments {
		if _, ok := proc[a.Member]; !ok || members[a.Member] {
			bad("assignment for %q, which is not a member or appears twice", a.Member)
			continue
		}
		members[a.Member] = true
		for _, t := range a.Active {
			at(t, a.Member, "active").active++
		}
		for _, t := range a.Standby {
			at(t, a.Member, "standby").standby++
			if !tasks[t] {
				bad("standby of stateless task %s on %q", t, a.Member)
			}
		}
		for _, t := range a.Warmup {
			at(t, a.Member, "warm-up")
			if !tasks[t] {
				bad("warm-up of stateless task %s on %q", t, a.Member)
			}
			warmups++
		}
		n := len(a.Active)
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	held, warming := 0, 0
	for _, mv := range r.Moves {
		switch mv.Reason {
		case ReasonWarmup:
			warming++
			held++
		case ReasonWaiting:
			held++
		}
	}
	if len(g.Members) > 0 {
		for t, stateful := range tasks {
			x := seen[t]
			switch {
			case x == nil || x.active == 0:
				bad("task %s has no active", t)
				continue
			case x.active > 1:
				bad("task %s is active on %d members", t, x.active)
			}
			if want := min(g.NumStandbys, len(procs)-len(x.procs)+x.standby); stateful && x.standby < want {
				bad("task %s has %d standbys, want %d", t, x.standby, want)
			}
			if x.standby > g.NumStandbys {
				bad("task %s has %d standbys, more than %d", t, x.standby, g.NumStandbys)
			}
		}
	}
	if warmups > g.NumWarmups {
		bad("%d warm-ups, more than %d", warmups, g.NumWarmups)
	}
	if warmups != warming {
		bad("%d warm-ups but %d actives held for one", warmups, warming)
	}
	if held > warming && warming < g.NumWarmups {
		bad("%d actives wait for a warm-up, but only %d of %d warm-ups are used", held-warming, warming, g.NumWarmups)
	}
	if hi-lo > 1+2*held {
		bad("active counts from %d to %d with %d held for warm-ups", lo, hi, held)
	}
	return errors.Join(errs...)
}
