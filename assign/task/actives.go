package task

import (
	"cmp"
	"slices"
)

// placeActives gives every task one active member. Members' counts end
// within one of each other: each may hold floor(T/M) tasks, and the
// first extra = T mod M members to reach it may hold one more. Owners
// keep what fits: first the stateful tasks no other process has state
// of, then those another process has state of, and stateless tasks last,
// so that what an owner gives up moves without restoring where it can (a
// stateless task never restores; a stateful one does unless it lands on a
// process with its state); the rest go, the tasks some process has state
// of first, to the member under its cap whose process has the most state
// of the task, then the fewest actives, then the smallest id.
func (p *planner) placeActives() {
	floor, extra := len(p.tasks)/len(p.members), len(p.tasks)%len(p.members)
	keep := func(t taskIdx, o memberIdx) {
		p.active[t] = o
		p.activeCount[o]++
	}
	order := make([]taskIdx, len(p.tasks))
	keepRank := make([]int8, len(p.tasks))
	for t := range p.tasks {
		p.Poll()
		order[t] = taskIdx(t)
		switch {
		case !p.stateful[t]:
			keepRank[t] = 2
		case p.elsewhere(taskIdx(t)):
			keepRank[t] = 1
		}
	}
	slices.SortStableFunc(order, func(a, b taskIdx) int { return cmp.Compare(keepRank[a], keepRank[b]) })
	later := make([]bool, len(p.tasks))
	byLater := func(a, b taskIdx) int {
		switch {
		case later[a] == later[b]:
			return 0
		case later[b]:
			return -1
		}
		return 1
	}
	for _, t := range order {
		p.Poll()
		if o := p.prevActive[t]; o >= 0 && p.activeCount[o] < floor {
			keep(t, o)
		}
	}
	for _, t := range order {
		p.Poll()
		if o := p.prevActive[t]; o >= 0 && p.active[t] < 0 && p.activeCount[o] == floor && extra > 0 {
			keep(t, o)
			extra--
		}
	}
	// Free tasks that some process has state of go first, while members
	// under their cap remain to choose from.
	for t := range p.tasks {
		p.Poll()
		later[t] = true
		for q := range p.procs {
			if r, _ := p.stateRank(taskIdx(t), procIdx(q)); r < 2 {
				later[t] = false
				break
			}
		}
		order[t] = taskIdx(t)
	}
	slices.SortStableFunc(order, byLater)
	for _, t := range order {
		o := p.prevActive[t]
		if p.active[t] >= 0 {
			continue
		}
		best := memberIdx(-1)
		for m := range p.members {
			p.Poll()
			c := p.activeCount[m]
			if c > floor || c == floor && extra == 0 {
				continue
			}
			if best < 0 || p.betterActive(t, memberIdx(m), best) {
				best = memberIdx(m)
			}
		}
		if p.activeCount[best] == floor {
			extra--
		}
		keep(t, best)
		if o >= 0 {
			p.move(t, KindActive, o, best, ReasonBalance)
		}
	}
}

// compareState orders members by the state their processes have of t
// (stateRank).
func (p *planner) compareState(t taskIdx, a, b memberIdx) int {
	ra, la := p.stateRank(t, p.proc[a])
	rb, lb := p.stateRank(t, p.proc[b])
	return cmp.Or(cmp.Compare(ra, rb), cmp.Compare(la, lb))
}

// betterActive reports whether member a is a better new active of task t
// than member b.
func (p *planner) betterActive(t taskIdx, a, b memberIdx) bool {
	if c := p.compareState(t, a, b); c != 0 {
		return c < 0
	}
	if p.activeCount[a] != p.activeCount[b] {
		return p.activeCount[a] < p.activeCount[b]
	}
	return a < b
}
