package assigntest

import (
	"slices"

	"github.com/assignd/assignd/assign"
)

// TP is one topic partition.
type TP struct {
	Topic     string
	Partition int32
}

// Owners maps every assigned partition of r to its member id. Pending
// partitions have no owner.
func Owners(r *assign.Result) map[TP]string {
	out := make(map[TP]string)
	for _, ma := range r.Members {
		for _, tp := range ma.Assigned {
			for _, p := range tp.Partitions {
				out[TP{tp.Topic, p}] = ma.ID
			}
		}
	}
	return out
}

// Moves counts the partitions that prev assigned to a member that is still
// in next but that next assigns to another member or withholds as pending
// (a pending partition is on its way to another member). Partitions of
// members that left, and partitions that no longer exist, are not moves:
// this is the definition of assign.Stats.Moved, applied across two
// results.
func Moves(prev, next *assign.Result) int {
	present := make(map[string]bool, len(next.Members))
	for _, ma := range next.Members {
		present[ma.ID] = true
	}
	now := Owners(next)
	withheld := make(map[TP]bool)
	for _, tp := range next.Pending {
		for _, p := range tp.Partitions {
			withheld[TP{tp.Topic, p}] = true
		}
	}
	moves := 0
	for tp, was := range Owners(prev) {
		if !present[was] {
			continue
		}
		if is, ok := now[tp]; (ok && is != was) || withheld[tp] {
			moves++
		}
	}
	return moves
}

// NextGroup returns the group of the next round after g was assigned r, as
// members that installed r would report it: each member owns what r
// assigned it, in generation g.Generation, and the group forms generation
// g.Generation+1. Everything else is copied from g, so the result can be
// edited (Edit) without touching g. Sticky (eager) members report their
// previous assignment in UserData; NextGroup does not encode that.
func NextGroup(g *assign.Group, r *assign.Result) *assign.Group {
	next := cloneGroup(g)
	next.Generation = g.Generation + 1
	got := make(map[string][]assign.TopicPartitions, len(r.Members))
	for _, ma := range r.Members {
		got[ma.ID] = ma.Assigned
	}
	for i := range next.Members {
		m := &next.Members[i]
		m.Owned = cloneTPs(got[m.ID])
		m.Generation = g.Generation
	}
	return next
}

func cloneGroup(g *assign.Group) *assign.Group {
	out := &assign.Group{Generation: g.Generation, Protocol: g.Protocol}
	out.Members = make([]assign.Member, len(g.Members))
	for i, m := range g.Members {
		m.Topics = slices.Clone(m.Topics)
		m.Owned = cloneTPs(m.Owned)
		m.UserData = slices.Clone(m.UserData)
		out.Members[i] = m
	}
	out.Topics = make([]assign.Topic, len(g.Topics))
	for i, t := range g.Topics {
		if t.Racks != nil {
			racks := make([][]string, len(t.Racks))
			for p, rs := range t.Racks {
				racks[p] = slices.Clone(rs)
			}
			t.Racks = racks
		}
		out.Topics[i] = t
	}
	return out
}

func cloneTPs(l []assign.TopicPartitions) []assign.TopicPartitions {
	if l == nil {
		return nil
	}
	out := make([]assign.TopicPartitions, len(l))
	for i, tp := range l {
		out[i] = assign.TopicPartitions{Topic: tp.Topic, Partitions: slices.Clone(tp.Partitions)}
	}
	return out
}
