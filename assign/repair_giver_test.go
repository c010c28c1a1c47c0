package assign_test

import (
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// Issue 27, item 1: of two members that must each be able to give one
// partition to a newcomer, the balance repair takes it from the one that
// holds a partition off its rack, which it hands over (one move fixes both
// balance and locality); taking it from the other, which holds only
// on-rack partitions, cost one move more (realignment then moves the
// off-rack one as well, or leaves it off its rack). The Java client's
// plan moves one partition here.
func TestRepairTakesFromTheGiverOffItsRack(t *testing.T) {
	b := assigntest.NewGroup().Topic("t", 4).
		Racks("t", []string{"rack-b"}, []string{"rack-a"}, []string{"rack-c"}, []string{"rack-c"}).
		Member("m1", "t").Rack("m1", "rack-c").Owns("m1", "t", 2, 3).Gen("m1", 1).
		Member("m2", "t").Rack("m2", "rack-a").Owns("m2", "t", 0, 1).Gen("m2", 1).
		Member("m3", "t")
	for _, a := range append([]assign.Assignor{assign.Sticky()}, cooperativeAssignors...) {
		t.Run(assign.Ref(a), func(t *testing.T) {
			g := b.Build()
			if a.Name() == "sticky" {
				g = asStickyEager(g)
			} else {
				g = assigntest.Edit(g).Protocol(assign.Cooperative).Build()
			}
			_, r, moved := convergeRounds(t, a, g)
			if moved != 1 {
				t.Errorf("moved %d partitions, want 1: %v", moved, layout(r))
			}
			// m3 has no rack: no partition is off its rack.
			want := map[string]string{"m1": "t:2,3", "m2": "t:1", "m3": "t:0"}
			wantLayout(t, r, want)
		})
	}
}
