package assign

// WorstTopicSkew is the largest difference, within one topic, between the
// partitions two of its subscribers hold in res, and that topic (the first
// by name on a tie; "" when no topic is skewed). Members of res missing
// from g (none, for a result of g) are ignored. The work is linear in the
// subscriptions and the assigned runs; memory in the topics.
func WorstTopicSkew(g *Group, res *Result) (int32, string) {
	type spread struct{ lo, hi int }
	topics := make(map[string]*spread)
	assigned := make(map[string][]TopicPartitions, len(res.Members))
	for _, m := range res.Members {
		assigned[m.ID] = m.Assigned
	}
	held := make(map[string]int)
	for _, m := range g.Members {
		clear(held)
		for _, tp := range assigned[m.ID] {
			held[tp.Topic] += len(tp.Partitions)
		}
		for _, t := range m.Topics {
			n := held[t]
			if s := topics[t]; s == nil {
				topics[t] = &spread{n, n}
			} else {
				s.lo, s.hi = min(s.lo, n), max(s.hi, n)
			}
		}
	}
	var worst int32
	var topic string
	for t, s := range topics {
		if d := int32(s.hi - s.lo); d > worst || (d == worst && d > 0 && t < topic) {
			worst, topic = d, t
		}
	}
	return worst, topic
}
