package assign_test

import (
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// The smallest group the convergence property found settling in two
// follow-ups before lookahead. Seven partitions, ten members; p0's only
// replica is on az3, p5's on az1, the others have none; d (az1) owns p0,
// off its rack, and a owns three. The first round trims a and realign
// trades p0 to g (az3) for one of a's partitions, so d still holds one
// and p5, which nobody owned, is given at once to e (az2). In the
// follow-up the traded partition is free again, d holds nothing, and
// realign revokes p5 from e to bring it home: a second follow-up. Played
// ahead, that follow-up shows p5 going to d, so the first round places it
// there at once and the group settles in one follow-up.
func TestRackLookaheadSettlesInOneFollowup(t *testing.T) {
	b := assigntest.NewGroup().Protocol(assign.Cooperative).Topic("t", 7).
		Racks("t", []string{"az3"}, nil, nil, nil, nil, []string{"az1"}, nil)
	for _, m := range []struct{ id, rack string }{
		{"a", ""}, {"b", ""}, {"c", ""}, {"d", "az1"}, {"e", "az2"},
		{"f", "az2"}, {"g", "az3"}, {"h", ""}, {"i", ""}, {"j", ""},
	} {
		b.Member(m.id, "t").Gen(m.id, 0)
		if m.rack != "" {
			b.Rack(m.id, m.rack)
		}
	}
	g := b.Owns("a", "t", 1, 2, 3).Owns("b", "t", 4).Owns("c", "t", 6).Owns("d", "t", 0).Build()
	for _, a := range cooperativeAssignors {
		t.Run(assign.Ref(a), func(t *testing.T) {
			for _, x := range []struct {
				name string
				opts []assign.Option
				want int // follow-ups
			}{
				{"realign", nil, 1},
				{"keep owners", []assign.Option{assign.WithKeepMisalignedRacks(true)}, 1},
			} {
				cur, followups := g, 0
				r := run(t, a, cur, append(x.opts, assign.WithMoveDetail(100)), balanced)
				for _, mv := range r.Moves {
					if mv.From == "" && mv.Reason != assign.ReasonNoOwner {
						t.Errorf("%s: %s-%d had no owner, but its reason is %s", x.name, mv.Topic, mv.Partition, mv.Reason)
					}
				}
				for r.FollowupRequired && followups < 3 {
					followups++
					cur = assigntest.NextGroup(cur, r)
					r = run(t, a, cur, x.opts, balanced)
				}
				if followups != x.want {
					t.Errorf("%s: %d follow-ups, want %d", x.name, followups, x.want)
				}
				if x.opts == nil {
					if n := offRackCount(cur, r); n != 0 {
						t.Errorf("%s: %d partitions settled off their racks, want 0", x.name, n)
					}
				}
			}
		})
	}
}
