package assign_test

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// newcomerTopics returns, per topic, the partitions member id is assigned.
func newcomerTopics(r *assign.Result, id string) map[string]int {
	per := map[string]int{}
	for _, tp := range assigned(r, id) {
		per[tp.Topic] += len(tp.Partitions)
	}
	return per
}

// equalGroup is members × topics of the given sizes, every member
// subscribed to every topic, COOPERATIVE.
func equalGroup(members int, sizes []int32) (*assigntest.GroupBuilder, []string) {
	b := assigntest.NewGroup().Protocol(assign.Cooperative)
	var names []string
	for i, n := range sizes {
		names = append(names, topicName(i))
		b.Topic(topicName(i), n)
	}
	for m := range members {
		b.Member(memberName(m), names...)
	}
	return b, names
}

// Issue 27, item 2: one member joins a settled group on many topics. The
// members over quota give up one partition each, and whatever they give
// up is what the newcomer gets; if they all choose by the Java client's
// rule alone (keep the lowest partition numbers, topics in name order at
// each number), a group whose members each own partition i of every topic
// gives the newcomer partitions of one topic only. The trim's room
// (trimRoom) spreads them: no topic beyond the newcomer's even share plus
// one, with exactly the moves of a single join.
func TestNewcomerGetsEveryTopicsShare(t *testing.T) {
	cases := []struct {
		name    string
		members int
		sizes   []int32
	}{
		{"1,000 members, 50 topics of 1,000", 1000, repeat(50, 1000)},
		{"1,000 members, 50 topics, one of 2,000", 1000, append([]int32{2000}, repeat(49, 1000)...)},
		{"200 members, 20 topics of 200", 200, repeat(20, 200)},
		{"12 members, 4 topics of 12", 12, repeat(4, 12)},
	}
	for _, tc := range cases {
		for _, a := range append([]assign.Assignor{assign.Sticky()}, cooperativeAssignors...) {
			t.Run(fmt.Sprintf("%s/%s", tc.name, assign.Ref(a)), func(t *testing.T) {
				b, names := equalGroup(tc.members, tc.sizes)
				g := b.Build()
				if a.Name() == "sticky" {
					g = assigntest.Edit(g).Protocol(assign.Eager).Build()
				}
				g0, r0, _ := convergeRounds(t, a, g)
				next := assigntest.NextGroup(g0, r0)
				if a.Name() == "sticky" {
					next = asStickyEager(next)
				}
				next = assigntest.Edit(next).Member("zz-newcomer", names...).Build()
				g1, r1, moved := convergeRounds(t, a, next)
				total := int32(0)
				for _, s := range tc.sizes {
					total += s
				}
				quota := total / int32(tc.members+1)
				if moved != int(quota) {
					t.Errorf("moved %d, want the newcomer's quota %d", moved, quota)
				}
				per := newcomerTopics(r1, "zz-newcomer")
				for i, name := range names {
					if limit := int(quota*tc.sizes[i]/total) + 1; per[name] > limit {
						t.Errorf("newcomer got %d of %s, want at most %d (its even share, rounded down, plus one): %v", per[name], name, limit, per)
					}
				}
				if s := topicSpread(g1, r1); s > 2 {
					t.Errorf("per-topic spread %d after the join, want at most 2", s)
				}
			})
		}
	}
}

func repeat(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// On random settled groups with equal subscriptions, k members join: the
// plan moves exactly what it moves without the trim's room (each joiner's
// quota, no more: the members that trim give up their excess over their
// quota), and no joiner ends with more of a topic than its even share of
// it rounded down plus one, unless the members that trim owned too little
// else to give.
func TestJoinersSpreadAcrossTopicsProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nt := rapid.IntRange(2, 8).Draw(t, "topics")
		nm := rapid.IntRange(2, 40).Draw(t, "members")
		joiners := rapid.IntRange(1, 3).Draw(t, "joiners")
		sizes := make([]int32, nt)
		for i := range sizes {
			sizes[i] = int32(rapid.IntRange(1, 3*nm).Draw(t, "partitions"))
		}
		a := rapid.SampledFrom(cooperativeAssignors).Draw(t, "assignor")
		b, names := equalGroup(nm, sizes)
		g0, r0, _ := convergeRounds(t, a, b.Build())
		next := assigntest.Edit(assigntest.NextGroup(g0, r0))
		for j := range joiners {
			next.Member(fmt.Sprintf("zz-joiner-%d", j), names...)
		}
		g1, r1, moved := convergeRounds(t, a, next.Build())
		total := int32(0)
		for _, s := range sizes {
			total += s
		}
		n := int32(nm + joiners)
		minQ, slots := total/n, total%n
		// The joiners get minQ each; the extra slots stay with the
		// members that owned more (planEqual's rule 1).
		want := int(minQ) * joiners
		over := int32(0)
		for _, m := range r0.Members {
			c := int32(0)
			for _, tp := range m.Assigned {
				c += int32(len(tp.Partitions))
			}
			if c > minQ {
				over++
			}
		}
		if slots > over {
			want += int(slots - over)
		}
		if moved != want {
			t.Fatalf("moved %d, want %d", moved, want)
		}
		for j := range joiners {
			id := fmt.Sprintf("zz-joiner-%d", j)
			per := newcomerTopics(r1, id)
			q := int32(0)
			for _, c := range per {
				q += int32(c)
			}
			for i, name := range names {
				if limit := int(q*sizes[i]/total) + joiners; per[name] > limit {
					t.Fatalf("%s got %d of %s, want at most %d: %v (sizes %v)", id, per[name], name, limit, per, sizes)
				}
			}
		}
		_ = g1
	})
}
