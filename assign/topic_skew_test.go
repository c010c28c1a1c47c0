package assign_test

import (
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
