package grouplab

import "fmt"

// replay rebuilds who owned what from the timeline's callbacks, in Seq
// order. A member owns a partition from the OnPartitionsAssigned that
// gives it until its OnPartitionsRevoked or OnPartitionsLost, or until it
// is killed (a dead process consumes nothing).
type replay struct {
	owner   map[TP]string
	lastGen map[string]int32
	// overlaps describes every assignment of a partition another member
	// still owned.
	overlaps []string
}

func newReplay() *replay {
	return &replay{owner: map[TP]string{}, lastGen: map[string]int32{}}
}

func (r *replay) apply(e *Event) {
	switch e.Kind {
	case EventAssigned:
		for _, tp := range e.Partitions {
			if cur, ok := r.owner[tp]; ok && cur != e.Member {
				r.overlaps = append(r.overlaps, fmt.Sprintf("%s assigned to %s at #%d (generation %d) while %s still owned it",
					tp, e.Member, e.Seq, e.Generation, cur))
			}
			r.owner[tp] = e.Member
		}
		r.lastGen[e.Member] = e.Generation
	case EventRevoked, EventLost:
		for _, tp := range e.Partitions {
			if r.owner[tp] == e.Member {
				delete(r.owner, tp)
			}
		}
	case EventKilled:
		for tp, m := range r.owner {
			if m == e.Member {
				delete(r.owner, tp)
			}
		}
		delete(r.lastGen, e.Member)
	case EventLeaving:
		delete(r.lastGen, e.Member)
	}
}

// snapshot copies the current ownership.
func (r *replay) snapshot() map[TP]string {
	out := make(map[TP]string, len(r.owner))
	for tp, m := range r.owner {
		out[tp] = m
	}
	return out
}

// activity reports whether e is part of group membership or rebalancing,
// as opposed to consumption bookkeeping and markers.
func activity(k EventKind) bool {
	switch k {
	case EventStarted, EventLeaving, EventKilled, EventAssigned, EventRevoked, EventLost, EventBalanced, EventLeaderSync:
		return true
	}
	return false
}
