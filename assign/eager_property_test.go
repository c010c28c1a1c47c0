package assign_test

import (
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// eagerShapes are the group shapes the property tests draw from: racks and
// static members everywhere, small equal-subscription groups with few
// partitions so that co-partitioned rack groups are common.
var eagerShapes = map[string][]assigntest.GenOption{
	"mixed": {assigntest.StaticMembers(), assigntest.MissingTopics(), assigntest.Owned()},
	"racks": {assigntest.StaticMembers(), assigntest.WithRacks(), assigntest.MissingTopics()},
	"co-partitioned racks": {assigntest.EqualSubscriptions(), assigntest.WithRacks(),
		assigntest.Partitions(2, 3), assigntest.Topics(2, 4), assigntest.Members(2, 6)},
	"unicode ids": {assigntest.StaticMembers(), assigntest.UnicodeIDs()},
	"wide":        {assigntest.Members(10, 40), assigntest.Topics(1, 8), assigntest.Partitions(0, 40), assigntest.WithRacks()},
}

func TestRangeMatchesModel(t *testing.T) {
	for name, shape := range eagerShapes {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := assigntest.GroupGen(shape...).Draw(t, "group")
				rackAware := rapid.Bool().Draw(t, "rack aware")
				r := run(t, assign.Range(), g, []assign.Option{assign.WithRackAware(rackAware)})
				if got, want := layout(r), modelLayout(g, modelRange(g, rackAware)); !maps.Equal(got, want) {
					t.Fatalf("range differs from the Java model:\n got  %q\n want %q", got, want)
				}
			})
		})
	}
}

func TestRoundRobinMatchesModel(t *testing.T) {
	for name, shape := range eagerShapes {
		t.Run(name, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := assigntest.GroupGen(shape...).Draw(t, "group")
				r := run(t, assign.RoundRobin(), g, nil)
				if got, want := layout(r), modelLayout(g, modelRoundRobin(g)); !maps.Equal(got, want) {
					t.Fatalf("roundrobin differs from the Java model:\n got  %q\n want %q", got, want)
				}
			})
		})
	}
}

// Per topic, range gives each subscriber n/m or n/m+1 partitions, the
// larger share to exactly n%m of them, and to the first n%m in member
// order when rack matching is off; topics with the same subscribers and
// partition count are co-partitioned, with or without racks.
func TestRangeShares(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.StaticMembers(), assigntest.WithRacks(), assigntest.Partitions(0, 9)).Draw(t, "group")
		rackAware := rapid.Bool().Draw(t, "rack aware")
		r := run(t, assign.Range(), g, []assign.Option{assign.WithRackAware(rackAware)})
		owner := assigntest.Owners(r)
		order := modelMemberOrder(g.Members)
		type shape struct {
			subs string
			n    int32
		}
		firstOf := map[shape]string{}
		for _, topic := range g.Topics {
			var subs []string
			for _, m := range order {
				if slices.Contains(m.Topics, topic.Name) {
					subs = append(subs, m.ID)
				}
			}
			if len(subs) == 0 || topic.Partitions == 0 {
				continue
			}
			n, m := int(topic.Partitions), len(subs)
			got := map[string]int{}
			for p := range topic.Partitions {
				got[owner[assigntest.TP{Topic: topic.Name, Partition: p}]]++
			}
			bigger := 0
			for i, id := range subs {
				switch c := got[id]; {
				case c == n/m+1:
					bigger++
					if !rackAware && i >= n%m {
						t.Fatalf("%s: %s is not among the first %d but got %d", topic.Name, id, n%m, c)
					}
				case c != n/m:
					t.Fatalf("%s: %s got %d partitions, want %d or %d", topic.Name, id, c, n/m, n/m+1)
				}
			}
			if bigger != n%m {
				t.Fatalf("%s: %d members got the larger share, want %d", topic.Name, bigger, n%m)
			}
			k := shape{subs: strings.Join(subs, "\x00"), n: topic.Partitions}
			if other, ok := firstOf[k]; ok {
				for p := range topic.Partitions {
					a := owner[assigntest.TP{Topic: topic.Name, Partition: p}]
					b := owner[assigntest.TP{Topic: other, Partition: p}]
					if a != b {
						t.Fatalf("%s and %s are not co-partitioned at %d: %s vs %s", topic.Name, other, p, a, b)
					}
				}
			} else {
				firstOf[k] = topic.Name
			}
		}
	})
}

func TestRoundRobinBalancedWithEqualSubscriptions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := assigntest.GroupGen(assigntest.EqualSubscriptions(), assigntest.StaticMembers(), assigntest.Members(1, 30)).Draw(t, "group")
		run(t, assign.RoundRobin(), g, nil, balanced)
	})
}

// The result depends on the group, not on the order of its members and
// topics, and not on what members owned before (range and roundrobin keep
// no history).
func TestEagerDeterministic(t *testing.T) {
	for _, a := range []assign.Assignor{assign.Range(), assign.RoundRobin()} {
		t.Run(a.Name(), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				g := assigntest.GroupGen(assigntest.StaticMembers(), assigntest.WithRacks(), assigntest.MissingTopics()).Draw(t, "group")
				want := run(t, a, g, nil)
				shuffled := assigntest.Edit(g).Build()
				shuffled.Members = rapid.Permutation(shuffled.Members).Draw(t, "members")
				shuffled.Topics = rapid.Permutation(shuffled.Topics).Draw(t, "topics")
				if got := run(t, a, shuffled, nil); !reflect.DeepEqual(got, want) {
					t.Fatalf("input order changed the result:\n got  %+v\n want %+v", got, want)
				}
				owning := assigntest.NextGroup(g, want)
				if got := run(t, a, owning, nil); !maps.Equal(layout(got), layout(want)) {
					t.Fatalf("owned partitions changed the plan:\n got  %v\n want %v", layout(got), layout(want))
				}
			})
		})
	}
}
