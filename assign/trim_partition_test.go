package assign_test

import (
	"cmp"
	"maps"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/wire"
)

// sentBy is g as members running a send it: eager sticky members with
// their history in user data (asStickyEager) for sticky, COOPERATIVE for
// the cooperative assignors.
func sentBy(a assign.Assignor, g *assign.Group) *assign.Group {
	if a.Name() == "sticky" {
		return asStickyEager(g)
	}
	return assigntest.Edit(g).Protocol(assign.Cooperative).Build()
}

// asStickyEager turns g into what eager sticky members send: their history
// in StickyAssignorUserData V1 as well as in the subscription's owned
// partitions.
func asStickyEager(g *assign.Group) *assign.Group {
	g = assigntest.Edit(g).Protocol(assign.Eager).Build()
	for i := range g.Members {
		m := &g.Members[i]
		if len(m.Owned) > 0 {
			m.UserData = wire.AppendStickyUserData(nil, m.Owned, m.Generation, true)
		}
	}
	return g
}

// Which owned partitions an over-quota member keeps in the equal-
// subscriptions path: the Java client's constrained builder keeps the first
// ones by (partition number, then topic) (kafka-java-assignors.md §3.4
// step 1). want is the settled plan: at once under EAGER, after the
// follow-up under COOPERATIVE; kept is what the owners keep in the first
// round.
func TestStickyKeepsLowestPartitionNumbersAcrossTopics(t *testing.T) {
	cases := []struct {
		name string
		g    *assigntest.GroupBuilder
		kept map[string]string
		want map[string]string
	}{
		{
			// The example (librdkafka #4044): c1 keeps half of
			// each topic, not all of t1.
			name: "two topics of 12, c2 joins c1",
			g: assigntest.NewGroup().Topic("t1", 12).Topic("t2", 12).
				Member("c1", "t1", "t2").Owns("c1", "t1", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11).
				Owns("c1", "t2", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11).Gen("c1", 1).
				Member("c2", "t1", "t2"),
			kept: map[string]string{"c1": "t1:0,1,2,3,4,5 t2:0,1,2,3,4,5"},
			want: map[string]string{"c1": "t1:0,1,2,3,4,5 t2:0,1,2,3,4,5", "c2": "t1:6,7,8,9,10,11 t2:6,7,8,9,10,11"},
		},
		{
			// maxQuota: 7 partitions over 2 members, c1 keeps 4; at
			// partition 1 both topics still fit.
			name: "odd total, the owner keeps maxQuota",
			g: assigntest.NewGroup().Topic("t1", 4).Topic("t2", 3).
				Member("c1", "t1", "t2").Owns("c1", "t1", 0, 1, 2, 3).Owns("c1", "t2", 0, 1, 2).Gen("c1", 1).
				Member("c2", "t1", "t2"),
			kept: map[string]string{"c1": "t1:0,1 t2:0,1"},
			want: map[string]string{"c1": "t1:0,1 t2:0,1", "c2": "t1:2,3 t2:2"},
		},
		{
			// Quota 4 of three topics: partition 0 of each, then t1-1
			// by the Java client's rule (topic order breaks the tie at
			// partition 1), which would free five of t2 where the two
			// newcomers' even shares are two each: the trim's room stops
			// t2 at four and c1 gives up t1-1 instead, as many moves.
			// The rest is dealt round robin in (topic, partition) order
			// (step 4).
			name: "three topics, two join, the room breaks the tie at the threshold",
			g: assigntest.NewGroup().Topic("t1", 2).Topic("t2", 6).Topic("t3", 4).
				Member("c1", "t1", "t2", "t3").Owns("c1", "t1", 0, 1).Owns("c1", "t2", 0, 1, 2, 3, 4, 5).
				Owns("c1", "t3", 0, 1, 2, 3).Gen("c1", 1).
				Member("c2", "t1", "t2", "t3").Member("c3", "t1", "t2", "t3"),
			kept: map[string]string{"c1": "t1:0 t2:0,1 t3:0"},
			want: map[string]string{"c1": "t1:0 t2:0,1 t3:0", "c2": "t1:1 t2:3,5 t3:2", "c3": "t2:2,4 t3:1,3"},
		},
		{
			// Owned sets that do not line up by partition number: Java
			// keeps by number, not by share of topic.
			name: "misaligned owners, c3 joins",
			g: assigntest.NewGroup().Topic("t1", 12).Topic("t2", 12).
				Member("c1", "t1", "t2").Owns("c1", "t1", 0, 1, 2, 3, 4, 5).Owns("c1", "t2", 6, 7, 8, 9, 10, 11).Gen("c1", 1).
				Member("c2", "t1", "t2").Owns("c2", "t1", 6, 7, 8, 9, 10, 11).Owns("c2", "t2", 0, 1, 2, 3, 4, 5).Gen("c2", 1).
				Member("c3", "t1", "t2"),
			kept: map[string]string{"c1": "t1:0,1,2,3,4,5 t2:6,7", "c2": "t1:6,7 t2:0,1,2,3,4,5"},
			want: map[string]string{"c1": "t1:0,1,2,3,4,5 t2:6,7", "c2": "t1:6,7 t2:0,1,2,3,4,5", "c3": "t1:8,9,10,11 t2:8,9,10,11"},
		},
		{
			// Only the member over maxQuota trims; the one at minQuota
			// keeps everything. By the Java client's rule alone c1
			// would keep t1:0,1 t2:0,1 and give c3 t1:2,3,4, three of
			// t1 where c3's even share of it is 1.5: the trim's room
			// (trimRoom: the share rounded up) stops at two
			// and c1 gives up t2-1 instead, as many moves.
			name: "one owner over quota, one at minQuota",
			g: assigntest.NewGroup().Topic("t1", 5).Topic("t2", 5).
				Member("c1", "t1", "t2").Owns("c1", "t1", 0, 1, 2, 3, 4).Owns("c1", "t2", 0, 1).Gen("c1", 1).
				Member("c2", "t1", "t2").Owns("c2", "t2", 2, 3, 4).Gen("c2", 1).
				Member("c3", "t1", "t2"),
			kept: map[string]string{"c1": "t1:0,1,2 t2:0", "c2": "t2:2,3,4"},
			want: map[string]string{"c1": "t1:0,1,2 t2:0", "c2": "t2:2,3,4", "c3": "t1:3,4 t2:1"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := tc.g.Build()
			t.Run("sticky", func(t *testing.T) {
				wantLayout(t, run(t, assign.Sticky(), asStickyEager(g), nil, balanced), tc.want)
			})
			t.Run("cooperative-sticky@1/EAGER", func(t *testing.T) {
				wantLayout(t, run(t, assign.CooperativeSticky(), assigntest.Edit(g).Protocol(assign.Eager).Build(), nil, balanced), tc.want)
			})
			t.Run("cooperative-sticky@1/COOPERATIVE", func(t *testing.T) {
				coop := assigntest.Edit(g).Protocol(assign.Cooperative).Build()
				r1 := run(t, assign.CooperativeSticky(), coop, nil, balanced)
				first := layout(r1)
				for id, want := range tc.kept {
					if first[id] != want {
						t.Errorf("first round: %s kept %q, want %q", id, first[id], want)
					}
				}
				r2 := run(t, assign.CooperativeSticky(), assigntest.NextGroup(coop, r1), nil, balanced)
				if r2.FollowupRequired {
					t.Fatalf("no convergence after one follow-up: pending %v", r2.Pending)
				}
				wantLayout(t, r2, tc.want)
			})
		})
	}
}

// javaOrder lists the owned partitions by (partition, topic), the order
// in which the Java client keeps them.
func javaOrder(owned []assign.TopicPartitions) []assigntest.TP {
	var all []assigntest.TP
	for _, o := range owned {
		for _, p := range o.Partitions {
			all = append(all, assigntest.TP{Topic: o.Topic, Partition: p})
		}
	}
	slices.SortFunc(all, func(a, b assigntest.TP) int {
		return cmp.Or(cmp.Compare(a.Partition, b.Partition), cmp.Compare(a.Topic, b.Topic))
	})
	return all
}

// javaKeep is the reference rule written plainly: sort the owned
// partitions by (partition, topic) and keep the first quota.
func javaKeep(owned []assign.TopicPartitions, quota int) map[string]int {
	all := javaOrder(owned)
	kept := map[string]int{}
	for _, x := range all[:min(quota, len(all))] {
		kept[x.Topic]++
	}
	return kept
}

// javaKeepWithRoom is the rule with the trim's room (trimRoom), written
// plainly: give up partitions in the reverse of javaKeep's order, skipping
// a topic whose room is spent while another has room, then keep by javaKeep
// among the rest; room is spent by what is given up.
func javaKeepWithRoom(owned []assign.TopicPartitions, quota int, room map[string]int) map[string]int {
	all := javaOrder(owned)
	slices.Reverse(all)
	drop := len(all) - quota
	given := map[assigntest.TP]bool{}
	spent := map[string]int{}
	for _, x := range all {
		if drop > 0 && spent[x.Topic] < room[x.Topic] {
			given[x] = true
			spent[x.Topic]++
			drop--
		}
	}
	var rest []assign.TopicPartitions
	for _, o := range owned {
		tp := assign.TopicPartitions{Topic: o.Topic}
		for _, p := range o.Partitions {
			if !given[assigntest.TP{Topic: o.Topic, Partition: p}] {
				tp.Partitions = append(tp.Partitions, p)
			}
		}
		rest = append(rest, tp)
	}
	kept := javaKeep(rest, quota)
	for _, o := range owned {
		room[o.Topic] = max(0, room[o.Topic]-(len(o.Partitions)-kept[o.Topic]))
	}
	return kept
}

// On random equal-subscription groups whose members own disjoint
// partitions (nothing contested, no racks), every owner keeps exactly what
// the reference rule keeps (javaKeepWithRoom: the Java client's, within the
// trim's room), as many partitions as before the change (its
// keepable count capped at its quota: moves never increase), and, when
// what it owns lines up by partition number across topics (it owns the
// same numbers in every topic that has them, as after whole-topic or
// round-robin ownership), its kept share of each topic is within one of
// an even split of its quota over the topics, where what it owns of a
// topic allows (a topic it owns less of is kept whole).
func TestStickyKeepPropertyJavaOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nt := rapid.IntRange(2, 5).Draw(t, "topics")
		nm := rapid.IntRange(1, 6).Draw(t, "owners")
		joiners := rapid.IntRange(0, 4).Draw(t, "joiners")
		aligned := rapid.Bool().Draw(t, "aligned")
		b := assigntest.NewGroup()
		var names []string
		sizes := make([]int32, nt)
		for i := range nt {
			names = append(names, topicName(i))
			sizes[i] = int32(rapid.IntRange(0, 24).Draw(t, "partitions"))
			b.Topic(names[i], sizes[i])
		}
		for m := range nm + joiners {
			b.Member(memberName(m), names...)
		}
		// Ownership: aligned gives each partition number to one owner in
		// every topic; otherwise each partition has its own owner. Some
		// partitions are left unowned.
		maxP := slices.Max(sizes)
		numOwner := make([]int, maxP)
		for p := range numOwner {
			numOwner[p] = rapid.IntRange(-1, nm-1).Draw(t, "owner of number")
		}
		owners := make([]int, nm)
		for i, name := range names {
			for p := range sizes[i] {
				o := numOwner[p]
				if !aligned {
					o = rapid.IntRange(-1, nm-1).Draw(t, "owner")
				}
				if o >= 0 {
					b.Owns(memberName(o), name, p)
					owners[o]++
				}
			}
		}
		for m := range nm {
			if owners[m] > 0 {
				b.Gen(memberName(m), 1)
			}
		}
		g := b.Build()
		total := 0
		for _, s := range sizes {
			total += int(s)
		}
		n := nm + joiners
		minQ, slots := total/n, total%n
		runs := []struct {
			name string
			a    assign.Assignor
			g    *assign.Group
		}{
			{"sticky", assign.Sticky(), asStickyEager(g)},
			{"cooperative-sticky@1 EAGER", assign.CooperativeSticky(), assigntest.Edit(g).Protocol(assign.Eager).Build()},
			{"cooperative-sticky@1 COOPERATIVE", assign.CooperativeSticky(), assigntest.Edit(g).Protocol(assign.Cooperative).Build()},
		}
		// The quotas, and the room (trimRoom) of each topic: each
		// receiver's even share rounded up (and the extra slots'), less
		// what they keep and what is free.
		quotas := make([]int, nm)
		slotsLeft := slots
		for m := range nm {
			quotas[m] = minQ
			if slotsLeft > 0 && owners[m] > minQ {
				quotas[m]++
				slotsLeft--
			}
		}
		atMin, aboveMin := joiners, 0 // the receivers, by quota
		heldByTakers, keptAll := map[string]int{}, map[string]int{}
		for m := range nm {
			for _, tp := range g.Members[m].Owned {
				keptAll[tp.Topic] += len(tp.Partitions)
				if owners[m] < quotas[m] {
					heldByTakers[tp.Topic] += len(tp.Partitions)
				}
			}
			if owners[m] < quotas[m] {
				if quotas[m] == minQ {
					atMin++
				} else {
					aboveMin++
				}
			}
		}
		for _, ru := range runs {
			r := run(t, ru.a, ru.g, nil, balanced)
			room := map[string]int{}
			for i, name := range names {
				free := int(sizes[i]) - keptAll[name]
				if total > 0 {
					share := func(q int) int { return (q*int(sizes[i]) + total - 1) / total }
					allow := atMin*share(minQ) + aboveMin*share(minQ+1) + share(slotsLeft)
					room[name] = max(0, allow-heldByTakers[name]-free)
				}
			}
			for m := range nm {
				owned := g.Members[m].Owned
				quota := quotas[m]
				kept := map[string]int{}
				keptTotal := 0
				for _, tp := range assigned(r, g.Members[m].ID) {
					for _, p := range tp.Partitions {
						if ownsPartition(owned, tp.Topic, p) {
							kept[tp.Topic]++
							keptTotal++
						}
					}
				}
				if keptTotal != min(owners[m], quota) {
					t.Fatalf("%s: %s kept %d of %d owned, quota %d: want %d", ru.name, g.Members[m].ID, keptTotal, owners[m], quota, min(owners[m], quota))
				}
				want := javaKeep(owned, quota)
				roomBound := false
				if owners[m] > quota {
					java := want
					want = javaKeepWithRoom(owned, quota, room)
					roomBound = !maps.Equal(java, want)
				}
				for _, name := range names {
					if kept[name] != want[name] {
						t.Fatalf("%s: %s kept %d of %s, the reference rule %d (owned %v, quota %d)", ru.name, g.Members[m].ID, kept[name], name, want[name], owned, quota)
					}
				}
				// The water level is the Java client's rule's; where the
				// trim's room changed what is given up, the receivers'
				// share of each topic is even instead.
				if !aligned || owners[m] <= quota || roomBound {
					continue
				}
				// Water level: topics not kept whole are within one of
				// each other, and none kept whole holds more than one
				// above the lowest of them.
				lo, hi, whole := -1, 0, 0
				for _, name := range names {
					ownedHere := 0
					for _, tp := range owned {
						if tp.Topic == name {
							ownedHere = len(tp.Partitions)
						}
					}
					if kept[name] == ownedHere {
						whole = max(whole, ownedHere)
						continue
					}
					if lo < 0 || kept[name] < lo {
						lo = kept[name]
					}
					hi = max(hi, kept[name])
				}
				if lo >= 0 && (hi-lo > 1 || whole > lo+1) {
					t.Fatalf("%s: %s kept per topic %v of %v: not an even split of quota %d", ru.name, g.Members[m].ID, kept, owned, quota)
				}
			}
		}
	})
}

func ownsPartition(owned []assign.TopicPartitions, topic string, p int32) bool {
	for _, tp := range owned {
		if tp.Topic == topic && slices.Contains(tp.Partitions, p) {
			return true
		}
	}
	return false
}
