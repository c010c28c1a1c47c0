package assign_test

import (
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// withZones spreads replicas over three zones, two replicas per partition
// (partition p of topic t in zones t+p and t+p+1), and puts member i in
// zone i mod 3: a fully rack-local, balanced assignment exists.
func withZones(g *assign.Group) *assign.Group {
	zones := []string{"az0", "az1", "az2"}
	for ti := range g.Topics {
		t := &g.Topics[ti]
		t.Racks = make([][]string, t.Partitions)
		for p := range t.Racks {
			t.Racks[p] = []string{zones[(ti+p)%3], zones[(ti+p+1)%3]}
		}
	}
	for i := range g.Members {
		g.Members[i].Rack = zones[i%3]
	}
	return g
}

// offRack counts assigned partitions with no replica in their consumer's
// rack.
func offRack(g *assign.Group, r *assign.Result) int {
	racks := make(map[assigntest.TP][]string)
	for _, t := range g.Topics {
		for p, rs := range t.Racks {
			racks[assigntest.TP{Topic: t.Name, Partition: int32(p)}] = rs
		}
	}
	rackOf := make(map[string]string)
	for _, m := range g.Members {
		rackOf[m.ID] = m.Rack
	}
	n := 0
	for _, m := range r.Members {
		for _, tp := range m.Assigned {
			for _, p := range tp.Partitions {
				local := false
				for _, rack := range racks[assigntest.TP{Topic: tp.Topic, Partition: p}] {
					local = local || rack == rackOf[m.ID]
				}
				if !local {
					n++
				}
			}
		}
	}
	return n
}

// KIP-881 with replicas in two of three zones: the first assignment is
// fully rack-local and balanced, a member leaving moves only its own
// partitions (and they land in their rack), and the unequal-subscription
// shape (E) is rack-local too.
func TestRackAwareLocalityAndStickiness(t *testing.T) {
	for _, a := range cooperativeAssignors {
		g := withZones(uniformGroup(30, 60, 60, nil))
		r := run(t, a, g, nil, balanced)
		if n := offRack(g, r); n != 0 {
			t.Errorf("%s: first assignment has %d off-rack partitions", assign.Ref(a), n)
		}
		left := without(assigntest.NextGroup(g, r), memberName(17))
		r2 := run(t, a, left, nil, balanced)
		if r2.Stats.Moved != 0 || r2.FollowupRequired || offRack(left, r2) != 0 {
			t.Errorf("%s: a member leaving moved %d partitions (off-rack %d)", assign.Ref(a), r2.Stats.Moved, offRack(left, r2))
		}
		e := withZones(uniformGroup(30, 60, 60, func(m, t int) bool { return m < 59 || t == 0 }))
		re := run(t, a, e, nil, balanced)
		if n := offRack(e, re); n != 0 || re.Stats.Imbalance != 0 {
			t.Errorf("%s: unequal subscriptions: %d off-rack, imbalance %d", assign.Ref(a), n, re.Stats.Imbalance)
		}
	}
}
