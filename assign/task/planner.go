package task

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/assignd/assignd/assign/internal/runner"
)

// Indices of different kinds, kept apart by the compiler.
type (
	memberIdx int32
	procIdx   int32
	taskIdx   int32
)

// planner holds one run: the group indexed densely (members by id,
// processes by id, tasks by subtopology and partition) and the plan being
// built. Where a replica goes is decided in three places, in this order:
// placeActives (actives.go), holdForWarmups (warmups.go) and
// placeStandbys (standbys.go).
type planner struct {
	g        *Group
	members  []*Member  // sorted by id
	proc     []procIdx  // per member
	procs    []string   // sorted
	procSize []int      // members per process
	tags     [][]string // per member: its values of g.RackTags ("" when unset)

	tasks    []TaskID // sorted
	stateful []bool   // per task
	index    map[TaskID]taskIdx

	prevActive  []memberIdx   // per task, -1: none
	prevStandby [][]memberIdx // per task, sorted
	lag         map[taskProc]int64
	hasReplica  map[taskProc]bool // a process's members hold a standby or warm-up of the task

	active      []memberIdx   // per task
	standby     [][]memberIdx // per task, sorted
	warmup      [][]memberIdx // per task, sorted
	activeCount []int         // per member
	spareCount  []int         // per member: standbys and warm-ups

	moves    []Move
	warnings []string

	runner.Poller
}

type taskProc struct {
	t taskIdx
	p procIdx
}

func newPlanner(g *Group, poll runner.Poller) (*planner, error) {
	if err := validate(g); err != nil {
		return nil, err
	}
	p := &planner{Poller: poll, g: g, index: map[TaskID]taskIdx{}, lag: map[taskProc]int64{}, hasReplica: map[taskProc]bool{}}
	for i := range g.Members {
		p.members = append(p.members, &g.Members[i])
	}
	slices.SortFunc(p.members, func(a, b *Member) int { return cmp.Compare(a.ID, b.ID) })
	procOf := map[string]procIdx{}
	for _, m := range p.members {
		if _, ok := procOf[m.Process]; !ok {
			procOf[m.Process] = 0
			p.procs = append(p.procs, m.Process)
		}
	}
	slices.Sort(p.procs)
	p.procSize = make([]int, len(p.procs))
	for i, id := range p.procs {
		procOf[id] = procIdx(i)
	}
	for _, m := range p.members {
		p.proc = append(p.proc, procOf[m.Process])
		p.procSize[procOf[m.Process]]++
		vals := make([]string, len(g.RackTags))
		for k, key := range g.RackTags {
			vals[k] = m.Tags[key]
			if key == "rack" && vals[k] == "" {
				vals[k] = m.Rack
			}
		}
		p.tags = append(p.tags, vals)
	}
	subs := slices.Clone(g.Subtopologies)
	slices.SortFunc(subs, func(a, b Subtopology) int { return cmp.Compare(a.ID, b.ID) })
	for _, s := range subs {
		for q := range s.Partitions {
			t := TaskID{s.ID, q}
			p.index[t] = taskIdx(len(p.tasks))
			p.tasks = append(p.tasks, t)
			p.stateful = append(p.stateful, s.Stateful)
		}
	}
	n := len(p.tasks)
	p.prevActive = filled(n, memberIdx(-1))
	p.prevStandby = make([][]memberIdx, n)
	p.active = filled(n, memberIdx(-1))
	p.standby = make([][]memberIdx, n)
	p.warmup = make([][]memberIdx, n)
	p.activeCount = make([]int, len(p.members))
	p.spareCount = make([]int, len(p.members))
	for mi, m := range p.members {
		p.Poll()
		// A task claimed active by two members stays with the first by id.
		for _, t := range m.Active {
			if ti, ok := p.index[t]; ok && p.prevActive[ti] < 0 {
				p.prevActive[ti] = memberIdx(mi)
			}
		}
		for _, t := range m.Standby {
			if ti, ok := p.index[t]; ok && !slices.Contains(p.prevStandby[ti], memberIdx(mi)) {
				p.prevStandby[ti] = append(p.prevStandby[ti], memberIdx(mi))
				p.hasReplica[taskProc{ti, p.proc[mi]}] = true
			}
		}
		for _, t := range m.Warmup {
			if ti, ok := p.index[t]; ok {
				p.hasReplica[taskProc{ti, p.proc[mi]}] = true
			}
		}
		for t, l := range m.Lags {
			if ti, ok := p.index[t]; ok {
				k := taskProc{ti, p.proc[mi]}
				if old, seen := p.lag[k]; !seen || l < old {
					p.lag[k] = l
				}
			}
		}
	}
	return p, nil
}

func filled[T any](n int, v T) []T {
	s := make([]T, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// lagOf is a process's lag on a task, and whether it is known.
func (p *planner) lagOf(t taskIdx, q procIdx) (int64, bool) {
	l, ok := p.lag[taskProc{t, q}]
	return l, ok
}

// caughtUp reports whether process q can run task t as its active
// without restoring first: the task is stateless, q already runs it, or
// q's lag is known and acceptable.
func (p *planner) caughtUp(t taskIdx, q procIdx) bool {
	if !p.stateful[t] {
		return true
	}
	if o := p.prevActive[t]; o >= 0 && p.proc[o] == q {
		return true
	}
	l, ok := p.lagOf(t, q)
	return ok && l <= p.g.AcceptableLag
}

// stateRank orders processes by the state they have of t: caught up
// first, then a known lag, least first, then a standby or warm-up of
// unknown lag, then none.
func (p *planner) stateRank(t taskIdx, q procIdx) (int, int64) {
	if !p.stateful[t] || p.caughtUp(t, q) {
		return 0, 0
	}
	if l, ok := p.lagOf(t, q); ok {
		return 1, l
	}
	if p.hasReplica[taskProc{t, q}] {
		return 1, math.MaxInt64
	}
	return 2, 0
}

// elsewhere reports whether a process other than its owner's has state of
// t (stateRank below 2), so that the owner had better give t up than
// another task when it must give one up.
func (p *planner) elsewhere(t taskIdx) bool {
	o := p.prevActive[t]
	if o < 0 || !p.stateful[t] {
		return false
	}
	for q := range p.procs {
		if procIdx(q) != p.proc[o] {
			if r, _ := p.stateRank(t, procIdx(q)); r < 2 {
				return true
			}
		}
	}
	return false
}

func (p *planner) move(t taskIdx, k Kind, from, to memberIdx, r Reason) {
	p.moves = append(p.moves, Move{Task: p.tasks[t], Kind: k, From: p.id(from), To: p.id(to), Reason: r})
}

func (p *planner) id(m memberIdx) string {
	if m < 0 {
		return ""
	}
	return p.members[m].ID
}

// result builds the plan's output, every list sorted.
func (p *planner) result(ref string) *Result {
	r := &Result{Assignor: ref, Warnings: p.warnings}
	byMember := make([]Assignment, len(p.members))
	for mi, m := range p.members {
		byMember[mi].Member = m.ID
	}
	for t := range p.tasks {
		if a := p.active[t]; a >= 0 {
			byMember[a].Active = append(byMember[a].Active, p.tasks[t])
		}
		for _, m := range p.standby[t] {
			byMember[m].Standby = append(byMember[m].Standby, p.tasks[t])
		}
		for _, m := range p.warmup[t] {
			byMember[m].Warmup = append(byMember[m].Warmup, p.tasks[t])
			r.FollowupRequired = true
		}
	}
	r.Assignments = byMember
	slices.SortStableFunc(p.moves, func(a, b Move) int {
		return cmp.Or(compareTasks(a.Task, b.Task), cmp.Compare(a.Kind, b.Kind),
			strings.Compare(a.From, b.From), strings.Compare(a.To, b.To))
	})
	r.Moves = p.moves
	return r
}
