package assign_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/assignd/assignd/assign"
)

func TestWorstTopicSkew(t *testing.T) {
	tps := func(topic string, ps ...int32) assign.TopicPartitions {
		return assign.TopicPartitions{Topic: topic, Partitions: ps}
	}
	member := func(id string, topics ...string) assign.Member { return assign.Member{ID: id, Topics: topics} }
	for _, tc := range []struct {
		name      string
		members   []assign.Member
		assigned  map[string][]assign.TopicPartitions
		wantSkew  int32
		wantTopic string
	}{{
		name:    "balanced in total, one topic each: both topics skewed by 2, the first by name",
		members: []assign.Member{member("a", "x", "y"), member("b", "x", "y")},
		assigned: map[string][]assign.TopicPartitions{
			"a": {tps("x", 0, 1)},
			"b": {tps("y", 0, 1)},
		},
		wantSkew: 2, wantTopic: "x",
	}, {
		name:    "spread within one",
		members: []assign.Member{member("a", "x", "y"), member("b", "x", "y")},
		assigned: map[string][]assign.TopicPartitions{
			"a": {tps("x", 0), tps("y", 0, 1)},
			"b": {tps("x", 1), tps("y", 2)},
		},
		wantSkew: 1, wantTopic: "y",
	}, {
		name:    "a non-subscriber holding nothing does not count",
		members: []assign.Member{member("a", "x"), member("b", "y")},
		assigned: map[string][]assign.TopicPartitions{
			"a": {tps("x", 0, 1, 2)},
			"b": {tps("y", 0)},
		},
	}, {
		name:     "a subscriber with nothing of the topic counts as 0",
		members:  []assign.Member{member("a", "x"), member("b", "x"), member("c", "x")},
		assigned: map[string][]assign.TopicPartitions{"a": {tps("x", 0, 1, 2)}, "b": {tps("x", 3)}},
		wantSkew: 3, wantTopic: "x",
	}, {
		name:    "no members",
		members: nil,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			g := &assign.Group{Members: tc.members}
			res := &assign.Result{}
			for _, m := range tc.members {
				res.Members = append(res.Members, assign.MemberAssignment{ID: m.ID, Assigned: tc.assigned[m.ID]})
			}
			skew, topic := assign.WorstTopicSkew(g, res)
			if skew != tc.wantSkew || topic != tc.wantTopic {
				t.Errorf("WorstTopicSkew = %d %q, want %d %q", skew, topic, tc.wantSkew, tc.wantTopic)
			}
		})
	}
}

// TestWorstTopicSkewIsTheLargestPairwiseGap: on random groups, in the
// engine's member order and shuffled, WorstTopicSkew is what comparing
// every two subscribers of every topic finds.
func TestWorstTopicSkewIsTheLargestPairwiseGap(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 1))
	names := []string{"a", "b", "c", "d", "e"}
	for round := range 300 {
		g := &assign.Group{}
		res := &assign.Result{}
		for m := range 1 + r.IntN(6) {
			id := fmt.Sprintf("m%02d", m)
			var topics []string
			var assigned []assign.TopicPartitions
			for _, name := range names {
				if r.IntN(3) > 0 {
					topics = append(topics, name)
				}
				// Held whether subscribed or not: a partition of a topic
				// the member does not subscribe to counts for nobody.
				if n := r.IntN(4); n > 0 {
					assigned = append(assigned, assign.TopicPartitions{Topic: name, Partitions: make([]int32, n)})
				}
			}
			g.Members = append(g.Members, assign.Member{ID: id, Topics: topics})
			res.Members = append(res.Members, assign.MemberAssignment{ID: id, Assigned: assigned})
		}
		if round%2 == 1 {
			r.Shuffle(len(res.Members), func(i, j int) { res.Members[i], res.Members[j] = res.Members[j], res.Members[i] })
		}
		var want int32
		wantTopic := ""
		for _, name := range names {
			for _, a := range g.Members {
				for _, b := range g.Members {
					if d := int32(held(res, a.ID, name) - held(res, b.ID, name)); slices.Contains(a.Topics, name) && slices.Contains(b.Topics, name) && d > want {
						want, wantTopic = d, name
					}
				}
			}
		}
		if skew, topic := assign.WorstTopicSkew(g, res); skew != want || topic != wantTopic {
			t.Fatalf("round %d: WorstTopicSkew = %d %q, the largest gap is %d %q", round, skew, topic, want, wantTopic)
		}
	}
}

// held is the partitions of topic member id holds in res.
func held(res *assign.Result, id, topic string) int {
	n := 0
	for _, ma := range res.Members {
		for _, tp := range ma.Assigned {
			if ma.ID == id && tp.Topic == topic {
				n += len(tp.Partitions)
			}
		}
	}
	return n
}
