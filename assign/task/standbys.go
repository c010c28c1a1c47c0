package task

import (
	"fmt"
	"slices"
)

// placeStandbys gives each stateful task up to g.NumStandbys standbys on
// processes that hold no other replica of it. Members keep the standbys
// they had where the rules allow and they are within their share of
// standbys; the rest go, task by task, to the member that clashes with
// the fewest tag values of the task's replicas, then is within its share,
// then has the most state, then the fewest replicas in all, then the
// smallest id.
func (p *planner) placeStandbys() {
	want := p.g.NumStandbys
	total := 0
	for t := range p.tasks {
		if p.stateful[t] {
			total += max(0, min(want, len(p.procs)-1-len(p.warmup[t])))
		}
	}
	share := (total + len(p.members) - 1) / len(p.members)
	dropped := map[taskMember]Reason{}

	// Members keep standbys in two steps, those that share no tag value
	// with the task's replicas first, so that a clashing one gives way
	// only to a member that does not clash once the others are kept.
	for _, clashing := range []bool{false, true} {
		for t, prev := range p.prevStandby {
			for _, m := range prev {
				p.Poll()
				k := taskMember{taskIdx(t), m}
				if _, done := dropped[k]; done || slices.Contains(p.standby[t], m) {
					continue
				}
				switch {
				case !p.stateful[t] || len(p.standby[t]) >= want:
					dropped[k] = ReasonNotNeeded
				case p.procTaken(taskIdx(t), p.proc[m]):
					dropped[k] = ReasonActiveProcess
				case p.clashes(taskIdx(t), m) == 0:
					p.addStandby(taskIdx(t), m)
				case !clashing:
					// the second step decides
				case p.clashFreeCandidate(taskIdx(t)):
					dropped[k] = ReasonRackTags
				default:
					p.addStandby(taskIdx(t), m)
				}
			}
		}
	}
	// Trimming and filling alternate until no member over its share has a
	// standby that a lighter member could hold, at most maxStandbyRounds
	// times, as a fill may choose a member over its share for fewer tag
	// clashes.
	short := p.fillStandbys(want, share)
	for range maxStandbyRounds {
		if !p.trimStandbys(share, dropped) {
			break
		}
		short = p.fillStandbys(want, share)
	}
	if short > 0 {
		p.warnings = append(p.warnings, fmt.Sprintf("%d standby replicas not placed: the group has %d processes, and a task's replicas each need their own", short, len(p.procs)))
	}
	p.standbyMoves(dropped)
}

// fillStandbys places standbys until each stateful task has want, or no
// process is left for it, and returns how many it could not place.
func (p *planner) fillStandbys(want, share int) int {
	short := 0
	for t := range p.tasks {
		if !p.stateful[t] {
			continue
		}
		for len(p.standby[t]) < want {
			best := memberIdx(-1)
			for m := range p.members {
				p.Poll()
				if p.procTaken(taskIdx(t), p.proc[m]) {
					continue
				}
				if best < 0 || p.betterStandby(taskIdx(t), memberIdx(m), best, share) {
					best = memberIdx(m)
				}
			}
			if best < 0 {
				short += want - len(p.standby[t])
				break
			}
			p.addStandby(taskIdx(t), best)
		}
	}
	return short
}

// trimStandbys takes kept standbys from members over their share, last
// task first, where another member under its share could hold the
// standby without sharing more tag values ([ReasonBalance]); the fill then
// places them. A member over its share only because nobody else could
// hold its standbys keeps them, so a group that rebalances again with
// what it was given moves nothing.
func (p *planner) trimStandbys(share int, dropped map[taskMember]Reason) bool {
	trimmed := false
	for m := range p.members {
		for t := len(p.tasks) - 1; t >= 0 && p.spareCount[m] > share; t-- {
			p.Poll()
			i, kept := slices.BinarySearch(p.standby[t], memberIdx(m))
			if !kept {
				continue
			}
			p.standby[t] = slices.Delete(p.standby[t], i, i+1)
			p.spareCount[m]--
			if p.lighterCandidate(taskIdx(t), memberIdx(m), share) {
				dropped[taskMember{taskIdx(t), memberIdx(m)}] = ReasonBalance
				trimmed = true
				continue
			}
			p.addStandby(taskIdx(t), memberIdx(m))
		}
	}
	return trimmed
}

// lighterCandidate reports whether a member under its share, other than
// m, could hold a standby of t (which m no longer holds) with no more tag
// clashes than m.
func (p *planner) lighterCandidate(t taskIdx, m memberIdx, share int) bool {
	c := p.clashes(t, m)
	for x := range p.members {
		p.Poll()
		if memberIdx(x) != m && p.spareCount[x] < share && !p.procTaken(t, p.proc[x]) && p.clashes(t, memberIdx(x)) <= c {
			return true
		}
	}
	return false
}

// maxStandbyRounds bounds placeStandbys' trim-and-fill rounds.
const maxStandbyRounds = 4

type taskMember struct {
	t taskIdx
	m memberIdx
}

func (p *planner) addStandby(t taskIdx, m memberIdx) {
	i, _ := slices.BinarySearch(p.standby[t], m)
	p.standby[t] = slices.Insert(p.standby[t], i, m)
	p.spareCount[m]++
}

// procTaken reports whether process q already holds a replica of t.
func (p *planner) procTaken(t taskIdx, q procIdx) bool {
	if a := p.active[t]; a >= 0 && p.proc[a] == q {
		return true
	}
	for _, m := range p.standby[t] {
		if p.proc[m] == q {
			return true
		}
	}
	for _, m := range p.warmup[t] {
		if p.proc[m] == q {
			return true
		}
	}
	return false
}

// clashes counts the rack tags on which member m has the same value as
// one of t's replicas.
func (p *planner) clashes(t taskIdx, m memberIdx) int {
	if len(p.g.RackTags) == 0 {
		return 0
	}
	n := 0
	for k, v := range p.tags[m] {
		if v == "" {
			continue
		}
		same := func(o memberIdx) bool { return p.tags[o][k] == v }
		if same(p.active[t]) || slices.ContainsFunc(p.standby[t], same) || slices.ContainsFunc(p.warmup[t], same) {
			n++
		}
	}
	return n
}

// clashFreeCandidate reports whether some member could take a standby of t
// without sharing a tag value with its replicas.
func (p *planner) clashFreeCandidate(t taskIdx) bool {
	for m := range p.members {
		p.Poll()
		if !p.procTaken(t, p.proc[m]) && p.clashes(t, memberIdx(m)) == 0 {
			return true
		}
	}
	return false
}

// betterStandby reports whether member a is a better new standby of t
// than member b.
func (p *planner) betterStandby(t taskIdx, a, b memberIdx, share int) bool {
	if ca, cb := p.clashes(t, a), p.clashes(t, b); ca != cb {
		return ca < cb
	}
	if oa, ob := p.spareCount[a] >= share, p.spareCount[b] >= share; oa != ob {
		return !oa
	}
	if c := p.compareState(t, a, b); c != 0 {
		return c < 0
	}
	if na, nb := p.spareCount[a]+p.activeCount[a], p.spareCount[b]+p.activeCount[b]; na != nb {
		return na < nb
	}
	return a < b
}

// standbyMoves records, per task, each standby a member lost, paired in
// member order with one a member gained, and the gains left over.
func (p *planner) standbyMoves(dropped map[taskMember]Reason) {
	for t, prev := range p.prevStandby {
		var lost, gained []memberIdx
		for _, m := range prev {
			if !slices.Contains(p.standby[t], m) {
				lost = append(lost, m)
			}
		}
		if len(lost) == 0 && len(p.standby[t]) == len(prev) {
			continue
		}
		for _, m := range p.standby[t] {
			if !slices.Contains(prev, m) {
				gained = append(gained, m)
			}
		}
		for i := range max(len(lost), len(gained)) {
			from, to, why := memberIdx(-1), memberIdx(-1), ReasonNoOwner
			if i < len(lost) {
				from, why = lost[i], dropped[taskMember{taskIdx(t), lost[i]}]
			}
			if i < len(gained) {
				to = gained[i]
			}
			p.move(taskIdx(t), KindStandby, from, to, why)
		}
	}
}
