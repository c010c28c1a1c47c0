package grouplab

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Analysis is what the timeline says about the run.
type Analysis struct {
	// Overlaps: a partition was assigned to a member while another member
	// still owned it. Must be empty.
	Overlaps []string
	// Outside: a member processed a record of a partition it did not own
	// by its callbacks. Must be empty.
	Outside []string
	// Lost: produced records nobody processed. Must be empty after Drain.
	Lost []Offset
	// Duplicates counts records processed more than once.
	Duplicates int
	// Unexplained: duplicates that are not the re-processing of records a
	// previous owner processed but never committed (a member killed or a
	// partition lost). Must be empty.
	Unexplained []string
	// Windows are the stretches between two settled points, in order.
	Windows []Window
	// Leaders lists, per generation, the SyncGroups that carried a plan.
	Leaders []LeaderRound
	// Disagreements: shim leaders of one generation sent different plans.
	// Must be empty: assignd and its fallback are deterministic.
	Disagreements []string
}

// Window is what happened between two settled points.
type Window struct {
	// From and To are the Seqs of the settled events bounding the window
	// (From is 0 for the first window).
	From, To int
	// Changes are the membership events (started, leaving, killed).
	Changes []Event
	// Generations are the distinct generations members were assigned in.
	Generations []int32
	// Moves are partitions whose owner differs between the two settled
	// points (partitions without an owner at From are not moves).
	Moves []Move
	// Reclaimed: a member revoked a partition and owned it again at the
	// end of the window; cooperative rebalancing should never make a
	// member give up what it keeps.
	Reclaimed []string
	// MissedSyncs name members that were in the group before and after a
	// generation of the window but never received that generation's
	// assignment: their SyncGroup reached the broker after the next
	// rebalance had begun (REBALANCE_IN_PROGRESS). Such a member learns
	// what it must revoke one rebalance late, which costs the group one
	// more follow-up (cf. KAFKA-14382); this is the protocol's timing,
	// not the assignor's plan.
	MissedSyncs []string
	// Owned is how many partitions each member owned at To.
	Owned map[string]int
	// Served and Fallbacks count shim balances by source.
	Served, Fallbacks int
}

// Imbalance is the largest minus the smallest number of partitions a
// member owned at the end of the window.
func (w *Window) Imbalance() int {
	lo, hi := -1, 0
	for _, n := range w.Owned {
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	return hi - max(lo, 0)
}

// StrayMoves are the window's moves between members that took no part in
// its membership changes. With equal subscriptions a sticky assignor makes
// none: only the partitions of members that leave, and those given to
// members that join, change hands.
func (w *Window) StrayMoves() []Move {
	var out []Move
	for _, m := range w.Moves {
		if !w.Changed(m.From) && !w.Changed(m.To) {
			out = append(out, m)
		}
	}
	return out
}

// Followups is how many more rebalances the window took than it had
// membership changes.
func (w *Window) Followups() int { return len(w.Generations) - len(w.Changes) }

// Changed reports whether member took part in one of the window's
// membership changes.
func (w *Window) Changed(member string) bool {
	for _, c := range w.Changes {
		if c.Member == member {
			return true
		}
	}
	return false
}

// Move is one partition changing owner.
type Move struct {
	TP
	From, To string
}

// LeaderRound is every plan sent for one generation.
type LeaderRound struct {
	Generation int32
	// Leaders are the names of the members that sent a plan, in order;
	// more than one only with kfake's leader defect.
	Leaders []string
}

// Analyze replays the timeline.
func (l *Lab) Analyze() *Analysis {
	a := &Analysis{}
	events := l.tl.Events()
	names, kinds := identities(events)

	assignedIn := assignedGenerations(events)
	r := newReplay()
	prev := map[TP]string{}
	w := Window{}
	revoked := map[string]map[TP]bool{}
	gens := map[int32]bool{}
	leaders := map[int32][]*Event{}
	for i := range events {
		e := &events[i]
		r.apply(e)
		switch e.Kind {
		case EventStarted, EventLeaving, EventKilled:
			w.Changes = append(w.Changes, *e)
		case EventAssigned:
			gens[e.Generation] = true
		case EventRevoked:
			if revoked[e.Member] == nil {
				revoked[e.Member] = map[TP]bool{}
			}
			for _, tp := range e.Partitions {
				revoked[e.Member][tp] = true
			}
		case EventBalanced:
			if strings.HasPrefix(e.Detail, "service") {
				w.Served++
			} else {
				w.Fallbacks++
			}
		case EventLeaderSync:
			leaders[e.Generation] = append(leaders[e.Generation], e)
		case EventSettled:
			now := r.snapshot()
			w.To = e.Seq
			w.Generations = slices.Sorted(maps.Keys(gens))
			for _, tp := range slices.SortedFunc(maps.Keys(now), compareTP) {
				if from, ok := prev[tp]; ok && from != now[tp] {
					w.Moves = append(w.Moves, Move{tp, from, now[tp]})
				}
			}
			for _, m := range slices.Sorted(maps.Keys(revoked)) {
				for _, tp := range slices.SortedFunc(maps.Keys(revoked[m]), compareTP) {
					if now[tp] == m {
						w.Reclaimed = append(w.Reclaimed, fmt.Sprintf("%s revoked %s and owns it again", m, tp))
					}
				}
			}
			w.MissedSyncs = missedSyncs(w.Generations, assignedIn)
			w.Owned = map[string]int{}
			for _, m := range now {
				w.Owned[m]++
			}
			a.Windows = append(a.Windows, w)
			w = Window{From: e.Seq}
			prev, revoked, gens = now, map[string]map[TP]bool{}, map[int32]bool{}
		}
	}
	a.Overlaps = r.overlaps

	for _, g := range slices.Sorted(maps.Keys(leaders)) {
		round := LeaderRound{Generation: g}
		var first *Event
		for _, e := range leaders[g] {
			name := names[e.MemberID]
			if name == "" {
				name = e.MemberID
			}
			round.Leaders = append(round.Leaders, name)
			if kinds[name] != Shim {
				continue
			}
			if first == nil {
				first = e
			} else if !samePlan(first.Assignments, e.Assignments) {
				a.Disagreements = append(a.Disagreements, fmt.Sprintf("generation %d: %s and %s sent different plans",
					g, names[first.MemberID], name))
			}
		}
		a.Leaders = append(a.Leaders, round)
	}

	l.analyzeDelivery(a)
	return a
}

// analyzeDelivery checks every produced record against what was
// processed.
func (l *Lab) analyzeDelivery(a *Analysis) {
	tl := l.tl
	tl.mu.Lock()
	defer tl.mu.Unlock()
	for _, tp := range slices.SortedFunc(maps.Keys(tl.produced), compareTP) {
		for off := range tl.produced[tp] {
			o := Offset{tp, off}
			cs := tl.consumed[o]
			if len(cs) == 0 {
				a.Lost = append(a.Lost, o)
				continue
			}
			if len(cs) > 1 {
				a.Duplicates++
			}
			for i, c := range cs {
				if c.Epoch == 0 {
					a.Outside = append(a.Outside, fmt.Sprintf("%s processed %s@%d without owning it", c.Member, tp, off))
				}
				if i == 0 {
					continue
				}
				p := cs[i-1]
				switch through, ok := tl.committed[p.Epoch][tp]; {
				case p.Epoch == c.Epoch:
					a.Unexplained = append(a.Unexplained, fmt.Sprintf("%s processed %s@%d twice in one ownership", c.Member, tp, off))
				case ok && through > off:
					a.Unexplained = append(a.Unexplained, fmt.Sprintf("%s processed %s@%d again although %s had committed through %d",
						c.Member, tp, off, p.Member, through))
				}
			}
		}
	}
}

// assignedGenerations lists, per member, the generations it received an
// assignment in.
func assignedGenerations(events []Event) map[string][]int32 {
	out := map[string][]int32{}
	for _, e := range events {
		if e.Kind == EventAssigned {
			out[e.Member] = append(out[e.Member], e.Generation)
		}
	}
	return out
}

// missedSyncs finds members that received assignments in generations
// before and after one of gens, but not in it.
func missedSyncs(gens []int32, assignedIn map[string][]int32) []string {
	var out []string
	for _, m := range slices.Sorted(maps.Keys(assignedIn)) {
		got := assignedIn[m]
		first, last := slices.Min(got), slices.Max(got)
		for _, g := range gens {
			if first < g && g < last && !slices.Contains(got, g) {
				out = append(out, fmt.Sprintf("%s missed generation %d", m, g))
			}
		}
	}
	return out
}

// identities maps member ids to names, and names to kinds.
func identities(events []Event) (map[string]string, map[string]Kind) {
	names := map[string]string{}
	kinds := map[string]Kind{}
	for _, e := range events {
		switch e.Kind {
		case EventAssigned:
			if e.MemberID != "" {
				names[e.MemberID] = e.Member
			}
		case EventStarted:
			switch e.Detail {
			case Shim.String():
				kinds[e.Member] = Shim
			case Native.String():
				kinds[e.Member] = Native
			}
		}
	}
	return names, kinds
}

func samePlan(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, bytes.Equal)
}

// Problems lists every violation of the invariants that hold for any
// scenario: no double ownership, no processing outside ownership, no
// loss, no unexplained duplicate, no member reclaiming what it revoked,
// no disagreeing leaders, and no rebalance while membership is unchanged.
// With cooperative set, each window may also take at most one follow-up
// rebalance per membership change, and one more per SyncGroup a member
// missed (see Window.MissedSyncs).
func (a *Analysis) Problems(cooperative bool) []string {
	var out []string
	out = append(out, a.Overlaps...)
	out = append(out, a.Outside...)
	for _, o := range a.Lost {
		out = append(out, fmt.Sprintf("%s@%d was produced but never processed", o.TP, o.Offset))
	}
	out = append(out, a.Unexplained...)
	out = append(out, a.Disagreements...)
	for i, w := range a.Windows {
		out = append(out, w.Reclaimed...)
		switch {
		case len(w.Changes) == 0 && len(w.Generations) > 0:
			out = append(out, fmt.Sprintf("window %d: %d rebalances without a membership change", i, len(w.Generations)))
		case len(w.Changes) == 0 && len(w.Moves) > 0:
			out = append(out, fmt.Sprintf("window %d: %d partitions moved without a membership change", i, len(w.Moves)))
		case cooperative && len(w.Generations) > 2*len(w.Changes)+len(w.MissedSyncs):
			out = append(out, fmt.Sprintf("window %d: %d rebalances for %d membership changes and %d missed SyncGroups (at most one follow-up each)",
				i, len(w.Generations), len(w.Changes), len(w.MissedSyncs)))
		}
	}
	return out
}
