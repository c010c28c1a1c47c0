package assign

import (
	"fmt"
	"math"
)

// setWeights validates the group's partition weights and, when there are
// any, fills st.weight with one weight per global partition. It runs for
// every assignor, so that a request with invalid weights is refused
// whatever assignor the policy picked; only load-aware assignors read the
// result.
//
// Partitions without a weight get the mean of their topic's given weights,
// or of all given weights for a topic without any: a new partition of a
// busy topic is more likely busy than idle, and the mean keeps the total
// close to what the leader measured. With no weight at all every
// partition weighs 1.
func (st *state) setWeights() error {
	ws := st.group.Weights
	if len(ws) == 0 {
		return nil
	}
	seen := make(map[string]int, len(ws))
	sum, given := 0.0, 0
	step := 0
	for i, tw := range ws {
		field := func(name string) string { return fmt.Sprintf("partition_weights[%d].%s", i, name) }
		mi, ok := st.meta[tw.Topic]
		switch {
		case !ok:
			return invalid("", field("topic"), "topic %q is not in the topic metadata", clipName(tw.Topic))
		case len(tw.Weights) > int(st.group.Topics[mi].Partitions):
			return invalid("", field("weights"), "topic %q has %d weights but %d partitions", clipName(tw.Topic), len(tw.Weights), st.group.Topics[mi].Partitions)
		}
		if j, dup := seen[tw.Topic]; dup {
			return invalid("", field("topic"), "topic %q already has weights in partition_weights[%d]", clipName(tw.Topic), j)
		}
		seen[tw.Topic] = i
		for j, w := range tw.Weights {
			st.stop.at(step)
			step++
			if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
				return invalid("", fmt.Sprintf("partition_weights[%d].weights[%d]", i, j), "weight %v of partition %d of topic %q is not a finite number >= 0", w, j, clipName(tw.Topic))
			}
			sum += w
			given++
		}
	}
	if sum > math.MaxFloat64/4 {
		return invalid("", "partition_weights", "the weights add up to more than %g", math.MaxFloat64/4)
	}
	fallback := 1.0
	if given > 0 {
		fallback = sum / float64(given)
	}
	st.weight = make([]float64, st.numPartitions())
	for t, topic := range st.topics {
		base, n := st.start[t], int(topic.Partitions)
		fill := fallback
		var given []float64
		if i, ok := seen[topic.Name]; ok {
			given = ws[i].Weights
			if len(given) > 0 {
				s := 0.0
				for _, w := range given {
					s += w
				}
				fill = s / float64(len(given))
			}
		}
		for p := range n {
			st.stop.at(p)
			if p < len(given) {
				st.weight[int(base)+p] = given[p]
			} else {
				st.weight[int(base)+p] = fill
			}
		}
	}
	return nil
}
