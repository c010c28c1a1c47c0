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
			_, r, moved := convergeRounds(t, a, sentBy(a, b.Build()))
			if moved != 1 {
				t.Errorf("moved %d partitions, want 1: %v", moved, layout(r))
			}
			// m3 has no rack: no partition is off its rack.
			want := map[string]string{"m1": "t:2,3", "m2": "t:1", "m3": "t:0"}
			wantLayout(t, r, want)
		})
	}
}

// Issue 27, item 1, the rack-aware joiner family (the Java oracle's sticky
// chain 1854, round 2, shrunk): f9ov, on rack-c, owns six partitions and
// keeps five, but one of them, tr0-2, lives on rack-a only. The one it
// gives up must be tr0-2, to the newcomer bojn on rack-a, which passes a
// partition nobody owned on to hrgr: one move, as in the Java client's
// plan. Handing hrgr an on-rack tg2 partition directly (hrgr does not
// subscribe to tr0) costs the same for the counts, but leaves tr0-2 off
// its rack for realignment to move as well: two moves.
func TestRepairGivesTheOffRackPartitionThroughANeighbour(t *testing.T) {
	a, b, c := []string{"rack-a"}, []string{"rack-b"}, []string{"rack-c"}
	ab, ba, bc := []string{"rack-a", "rack-b"}, []string{"rack-b", "rack-a"}, []string{"rack-b", "rack-c"}
	base := assigntest.NewGroup().Generation(3).
		Topic("tr0", 3).Racks("tr0", b, b, a).
		Topic("tg2", 14).Racks("tg2", ba, b, c, ba, a, a, ab, b, c, c, bc, c, c, a).
		Member("hrgr", "tg2").Gen("hrgr", 2).
		Member("f9ov", "tr0", "tg2").Rack("f9ov", "rack-c").Owns("f9ov", "tg2", 8, 9, 10, 11, 12).Owns("f9ov", "tr0", 2).Gen("f9ov", 1).
		Member("z7a", "tr0", "tg2").Gen("z7a", 2).
		Member("bojn", "tr0", "tg2").Rack("bojn", "rack-a")
	for _, asg := range append([]assign.Assignor{assign.Sticky()}, cooperativeAssignors...) {
		t.Run(assign.Ref(asg), func(t *testing.T) {
			_, r, moved := convergeRounds(t, asg, sentBy(asg, base.Build()))
			if moved != 1 {
				t.Errorf("moved %d partitions, want 1: %v", moved, layout(r))
			}
			if got := layout(r)["f9ov"]; got != "tg2:8,9,10,11,12" {
				t.Errorf("f9ov holds %q, want all of tg2 it owned", got)
			}
		})
	}
}
