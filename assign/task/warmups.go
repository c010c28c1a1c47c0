package task

import "slices"

// holdForWarmups keeps a stateful task with its owner when the balance
// moved it to a process that is not caught up, and gives the destination
// a warm-up replica instead, so that the task moves once its state is
// restored (KIP-441). At most g.NumWarmups warm-ups are placed; the tasks
// beyond them stay with their owner too ([ReasonWaiting]) and warm up in a
// later round, so that no active restores from scratch while a caught-up
// owner runs it. Destinations that were warming the task up already go
// first, so a warm-up in progress is not dropped for a new one.
func (p *planner) holdForWarmups() {
	if p.g.NumWarmups == 0 {
		return
	}
	var held []int // indices into p.moves
	for i, mv := range p.moves {
		t := p.index[mv.Task]
		if mv.Kind != KindActive || !p.stateful[t] || p.caughtUp(t, p.proc[p.active[t]]) {
			continue
		}
		held = append(held, i)
	}
	warming := func(i int) bool {
		t := p.index[p.moves[i].Task]
		_, known := p.lagOf(t, p.proc[p.active[t]])
		return known
	}
	slices.SortStableFunc(held, func(a, b int) int {
		wa, wb := warming(a), warming(b)
		switch {
		case wa == wb:
			return 0
		case wa:
			return -1
		}
		return 1
	})
	budget := p.g.NumWarmups
	for _, i := range held {
		p.Poll()
		t := p.index[p.moves[i].Task]
		owner, dest := p.prevActive[t], p.active[t]
		p.activeCount[dest]--
		p.activeCount[owner]++
		p.active[t] = owner
		p.moves[i].Reason = ReasonWaiting
		if budget > 0 {
			budget--
			p.warmup[t] = []memberIdx{dest}
			p.spareCount[dest]++
			p.moves[i].Reason = ReasonWarmup
		}
	}
}
