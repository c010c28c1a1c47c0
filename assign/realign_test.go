package assign_test

import (
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/wire"
)

// equalLayouts compares layouts, a member missing from one being one
// with nothing.
func equalLayouts(got, want map[string]string) bool {
	clean := func(m map[string]string) map[string]string {
		out := make(map[string]string)
		for k, v := range m {
			if v != "" {
				out[k] = v
			}
		}
		return out
	}
	return maps.Equal(clean(got), clean(want))
}

// stickyUserData is what an eager sticky member that owned owned in
// generation gen sends.
func stickyUserData(owned []assign.TopicPartitions, gen int32) []byte {
	return wire.AppendStickyUserData(nil, owned, gen, true)
}

// isOffRack reports whether member id of g is on a rack that hosts none of
// the replicas of topic's partition p, while the partition has replica
// racks: what KIP-881 realignment brings home.
func isOffRack(g *assign.Group, id, topic string, p int32) bool {
	rack := ""
	for _, m := range g.Members {
		if m.ID == id {
			rack = m.Rack
		}
	}
	for _, tp := range g.Topics {
		if tp.Name == topic && tp.Racks != nil && int(p) < len(tp.Racks) {
			rs := tp.Racks[p]
			return rack != "" && len(rs) > 0 && !slices.Contains(rs, rack)
		}
	}
	return false
}

// rackMoves splits assigntest.Moves(prev, next) into the partitions that
// were on their owner's rack in g (or had no rack to be on) and those that
// were off it.
func rackMoves(g *assign.Group, prev, next *assign.Result) (aligned, off int) {
	present := make(map[string]bool)
	for _, ma := range next.Members {
		present[ma.ID] = true
	}
	now := assigntest.Owners(next)
	pending := make(map[assigntest.TP]bool)
	for _, tp := range next.Pending {
		for _, p := range tp.Partitions {
			pending[assigntest.TP{Topic: tp.Topic, Partition: p}] = true
		}
	}
	for tp, was := range assigntest.Owners(prev) {
		if !present[was] {
			continue
		}
		if is, ok := now[tp]; (ok && is != was) || pending[tp] {
			if isOffRack(g, was, tp.Topic, tp.Partition) {
				off++
			} else {
				aligned++
			}
		}
	}
	return aligned, off
}

// offRackCount counts the partitions r assigns to a member off their rack.
func offRackCount(g *assign.Group, r *assign.Result) int {
	n := 0
	for _, ma := range r.Members {
		for _, tp := range ma.Assigned {
			for _, p := range tp.Partitions {
				if isOffRack(g, ma.ID, tp.Topic, p) {
					n++
				}
			}
		}
	}
	return n
}

// counts lists the members' partition counts, sorted.
func counts(r *assign.Result) []int {
	var out []int
	for _, ma := range r.Members {
		n := 0
		for _, tp := range ma.Assigned {
			n += len(tp.Partitions)
		}
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// stickyRackAssignors are the assignors KIP-881 realignment applies to.
var stickyRackAssignors = []assign.Assignor{assign.Sticky(), assign.CooperativeSticky(), assign.CooperativeStickyPerTopic()}

// The Java client's behaviour on small groups (kafka-java-assignors.md
// §3.3-3.5, KAFKA-15170), in two cooperative rounds: what the first round
// withholds and revokes, and where the follow-up puts it. Racks r1, r2, r3.
func TestRackRealignTable(t *testing.T) {
	r1, r2, r3 := []string{"r1"}, []string{"r2"}, []string{"r3"}
	type want struct {
		pending string            // round 1's withheld partitions, as layout spells them
		revoked map[string]string // round 1
		final   map[string]string // after the follow-up (or round 1 if none)
	}
	tests := []struct {
		name  string
		group *assign.Group
		want  want
	}{{
		// Each owns the other's rack's partitions: they trade all (the
		// Java client drops both sets and deals them by rack).
		name: "exchange",
		group: assigntest.NewGroup().Generation(3).Topic("t", 4).Racks("t", r1, r1, r2, r2).
			Member("a", "t").Rack("a", "r1").Owns("a", "t", 2, 3).Gen("a", 2).
			Member("b", "t").Rack("b", "r2").Owns("b", "t", 0, 1).Gen("b", 2).Build(),
		want: want{pending: "t:0,1,2,3", revoked: map[string]string{"a": "t:2,3", "b": "t:0,1"},
			final: map[string]string{"a": "t:0,1", "b": "t:2,3"}},
	}, {
		// a holds the extra partition, t-1 off its rack; b on t-1's rack
		// has room for it: the counts swap (Java: b is "unfilled at min").
		name: "hand-over",
		group: assigntest.NewGroup().Generation(3).Topic("t", 3).Racks("t", r1, r2, r2).
			Member("a", "t").Rack("a", "r1").Owns("a", "t", 0, 1).Gen("a", 2).
			Member("b", "t").Rack("b", "r2").Owns("b", "t", 2).Gen("b", 2).Build(),
		want: want{pending: "t:1", revoked: map[string]string{"a": "t:1"},
			final: map[string]string{"a": "t:0", "b": "t:1,2"}},
	}, {
		// A newcomer gets a partition nobody owned on a's rack; a gives up
		// its off-rack one instead (java-oracle.md, mismatch family 1).
		name: "trade for a free partition",
		group: assigntest.NewGroup().Generation(3).Topic("t", 2).Racks("t", r1, r2).
			Member("a", "t").Rack("a", "r1").Owns("a", "t", 1).Gen("a", 2).
			Member("b", "t").Rack("b", "r2").Build(),
		want: want{pending: "t:1", revoked: map[string]string{"a": "t:1"},
			final: map[string]string{"a": "t:0", "b": "t:1"}},
	}, {
		// java-oracle.md's shrunk seed 65 with the newcomer on rack r2:
		// Java's plan (a: t-0 now, t-1 revoked for b).
		name: "newcomer on the owner's partition's rack",
		group: assigntest.NewGroup().Generation(8).Topic("t", 2).Racks("t", r3, r2).
			Member("a", "t").Rack("a", "r3").Owns("a", "t", 1).Gen("a", 6).
			Member("b", "t").Rack("b", "r2").Gen("b", 7).Build(),
		want: want{pending: "t:1", revoked: map[string]string{"a": "t:1"},
			final: map[string]string{"a": "t:0", "b": "t:1"}},
	}, {
		// Balanced and every partition on its owner's rack: nothing moves.
		name: "aligned",
		group: assigntest.NewGroup().Generation(3).Topic("t", 4).Racks("t", r1, r1, r2, r2).
			Member("a", "t").Rack("a", "r1").Owns("a", "t", 0, 1).Gen("a", 2).
			Member("b", "t").Rack("b", "r2").Owns("b", "t", 2, 3).Gen("b", 2).Build(),
		want: want{revoked: map[string]string{}, final: map[string]string{"a": "t:0,1", "b": "t:2,3"}},
	}, {
		// t-2 and t-3 live on r3 only, where no member is: their owners
		// keep them.
		name: "no member on the rack",
		group: assigntest.NewGroup().Generation(3).Topic("t", 4).Racks("t", r1, r2, r3, r3).
			Member("a", "t").Rack("a", "r1").Owns("a", "t", 0, 2).Gen("a", 2).
			Member("b", "t").Rack("b", "r2").Owns("b", "t", 1, 3).Gen("b", 2).Build(),
		want: want{revoked: map[string]string{}, final: map[string]string{"a": "t:0,2", "b": "t:1,3"}},
	}, {
		// The member on t-1's rack is as loaded as a and has nothing to
		// trade back: moving t-1 would unbalance the group, so a keeps it
		// (Java: b is full, t-1 goes back to a).
		name: "no room on the rack",
		group: assigntest.NewGroup().Generation(3).Topic("t", 4).Racks("t", r1, r2, r2, r2).
			Member("a", "t").Rack("a", "r1").Owns("a", "t", 0, 1).Gen("a", 2).
			Member("b", "t").Rack("b", "r2").Owns("b", "t", 2, 3).Gen("b", 2).Build(),
		want: want{revoked: map[string]string{}, final: map[string]string{"a": "t:0,1", "b": "t:2,3"}},
	}, {
		// A member without a rack never receives for locality, and its
		// own partitions are never off its rack.
		name: "member without a rack",
		group: assigntest.NewGroup().Generation(3).Topic("t", 4).Racks("t", r1, r2, r2, r2).
			Member("a", "t").Rack("a", "r1").Owns("a", "t", 0, 1).Gen("a", 2).
			Member("b", "t").Owns("b", "t", 2, 3).Gen("b", 2).Build(),
		want: want{revoked: map[string]string{}, final: map[string]string{"a": "t:0,1", "b": "t:2,3"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := assigntest.Edit(tt.group).Protocol(assign.Cooperative).Build()
			r := run(t, assign.CooperativeSticky(), g, nil, balanced)
			if got := layoutOf(r.Pending); got != tt.want.pending {
				t.Errorf("round 1 pending %q, want %q", got, tt.want.pending)
			}
			if got := revokedLayout(r); !equalLayouts(got, tt.want.revoked) {
				t.Errorf("round 1 revoked %v, want %v", got, tt.want.revoked)
			}
			if r.FollowupRequired != (tt.want.pending != "") {
				t.Errorf("round 1 follow-up %v with pending %q", r.FollowupRequired, tt.want.pending)
			}
			if r.FollowupRequired {
				r = run(t, assign.CooperativeSticky(), assigntest.NextGroup(g, r), nil, balanced)
				if r.FollowupRequired || len(r.Pending) > 0 {
					t.Fatalf("round 2 still pending %v", r.Pending)
				}
			}
			if got := layout(r); !equalLayouts(got, tt.want.final) {
				t.Errorf("final %v, want %v", got, tt.want.final)
			}

			// With realignment off, nothing moves in any of these groups.
			keep := run(t, assign.CooperativeSticky(), g, []assign.Option{assign.WithKeepMisalignedRacks(true)}, balanced)
			if keep.Stats.Moved != 0 || keep.FollowupRequired {
				t.Errorf("keeping misaligned partitions moved %d", keep.Stats.Moved)
			}
			// The eager sticky assignor realigns in one round, to the same
			// owners.
			eager := assigntest.Edit(g).Protocol(assign.Eager).Build()
			for i := range eager.Members {
				m := &eager.Members[i]
				m.UserData = stickyUserData(m.Owned, 2)
				m.Owned = nil
			}
			if got := layout(run(t, assign.Sticky(), eager, nil, balanced)); !equalLayouts(got, tt.want.final) {
				t.Errorf("sticky: %v, want %v", got, tt.want.final)
			}
		})
	}
}

// The move cap paces realignment like any other move.
func TestRackRealignMaxMoves(t *testing.T) {
	r1, r2 := []string{"r1"}, []string{"r2"}
	g := assigntest.NewGroup().Generation(3).Protocol(assign.Cooperative).Topic("t", 8).
		Racks("t", r1, r1, r1, r1, r2, r2, r2, r2).
		Member("a", "t").Rack("a", "r1").Owns("a", "t", 4, 5, 6, 7).Gen("a", 2).
		Member("b", "t").Rack("b", "r2").Owns("b", "t", 0, 1, 2, 3).Gen("b", 2).Build()
	r := run(t, assign.CooperativeSticky(), g, []assign.Option{assign.WithMaxMoves(2)})
	if r.Stats.Moved != 2 || layoutOf(r.Pending) != "t:0,1" {
		t.Fatalf("capped at 2: moved %d, pending %v", r.Stats.Moved, r.Pending)
	}
	rounds := 1
	for ; r.FollowupRequired && rounds < 10; rounds++ {
		g = assigntest.NextGroup(g, r)
		r = run(t, assign.CooperativeSticky(), g, []assign.Option{assign.WithMaxMoves(2)})
	}
	if got := layout(r); !equalLayouts(got, map[string]string{"a": "t:0,1,2,3", "b": "t:4,5,6,7"}) {
		t.Fatalf("after %d rounds: %v", rounds, got)
	}
}

// On random groups, with and without racks, under both protocols:
// realignment keeps every member's count, moves a partition from a
// member that would keep it only when the partition is off that member's
// rack, and never leaves more partitions off their racks than keeping
// them does.
func TestRackRealignProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SampledFrom(stickyRackAssignors).Draw(t, "assignor")
		proto := assign.Eager
		if a != assign.Sticky() && rapid.Bool().Draw(t, "cooperative") {
			proto = assign.Cooperative
		}
		opts := []assigntest.GenOption{assigntest.Owned(), assigntest.Conflicts(), assigntest.Members(1, 10), assigntest.Protocol(proto)}
		if rapid.Bool().Draw(t, "racks") {
			opts = append(opts, assigntest.WithRacks())
		}
		if rapid.Bool().Draw(t, "equal subscriptions") {
			opts = append(opts, assigntest.EqualSubscriptions())
		}
		g := assigntest.GroupGen(opts...).Draw(t, "group")
		claims := make(map[assigntest.TP][]string)
		for _, m := range g.Members {
			for _, tp := range m.Owned {
				for _, p := range tp.Partitions {
					k := assigntest.TP{Topic: tp.Topic, Partition: p}
					claims[k] = append(claims[k], m.ID)
				}
			}
		}
		if a == assign.Sticky() {
			for i := range g.Members {
				m := &g.Members[i]
				m.UserData = stickyUserData(m.Owned, max(m.Generation, 0))
				m.Owned = nil
			}
		}
		keep := run(t, a, g, []assign.Option{assign.WithKeepMisalignedRacks(true)}, balanced)
		re := run(t, a, g, nil, balanced)
		keptBy := assigntest.Owners(keep)
		reBy := assigntest.Owners(re)
		for tp, was := range keptBy {
			if c := claims[tp]; len(c) != 1 || c[0] != was || reBy[tp] == was {
				continue // not kept by its one previous owner, or kept still
			}
			if !isOffRack(g, was, tp.Topic, tp.Partition) {
				t.Fatalf("%v moved from its owner %s, on its rack, to %q", tp, was, reBy[tp])
			}
		}
		if proto == assign.Eager {
			if !slices.Equal(counts(keep), counts(re)) {
				t.Fatalf("realignment changed the counts: %v vs %v", counts(keep), counts(re))
			}
			if k, r := offRackCount(g, keep), offRackCount(g, re); r > k {
				t.Fatalf("realignment left %d partitions off their racks, keeping them %d", r, k)
			}
		}
	})
}

// Rack-aware cooperative groups converge: from any random group, rounds
// settle in one follow-up, misaligned partitions brought home in it (the
// first round plays the follow-up ahead: lookahead), and the settled
// group realigns nothing more.
func TestRackRealignPropertyConverges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		a := rapid.SampledFrom(cooperativeAssignors).Draw(t, "assignor")
		opts := []assigntest.GenOption{assigntest.Owned(), assigntest.WithRacks(), assigntest.Members(1, 10),
			assigntest.Protocol(assign.Cooperative)}
		if rapid.Bool().Draw(t, "equal subscriptions") {
			opts = append(opts, assigntest.EqualSubscriptions())
		}
		g := assigntest.GroupGen(opts...).Draw(t, "group")
		g, r, _ := converge(t, a, g, 1)
		again := run(t, a, assigntest.NextGroup(g, r), nil, balanced)
		if again.Stats.Moved != 0 {
			t.Fatalf("a settled group moved %d partitions", again.Stats.Moved)
		}
	})
}
