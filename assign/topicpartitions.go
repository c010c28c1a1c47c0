package assign

import (
	"slices"
	"strings"
)

// mergeTopicPartitions merges two lists into one sorted by topic with
// ascending, distinct partitions.
func mergeTopicPartitions(a, b []TopicPartitions, stop *stopper) []TopicPartitions {
	byTopic := make(map[string][]int32, len(a)+len(b))
	for _, l := range [][]TopicPartitions{a, b} {
		for _, tp := range l {
			byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partitions...)
		}
	}
	out := make([]TopicPartitions, 0, len(byTopic))
	for t, ps := range byTopic {
		stop.sort(ps)
		out = append(out, TopicPartitions{Topic: t, Partitions: slices.Compact(ps)})
	}
	slices.SortFunc(out, func(x, y TopicPartitions) int { return strings.Compare(x.Topic, y.Topic) })
	return out
}
