package assign

import (
	"cmp"
	"slices"
)

// WorstTopicSkew is the largest difference, within one topic, between the
// partitions two of its subscribers hold in res, and that topic (the first
// by name on a tie; "" when no topic is skewed). Members of res missing
// from g (none, for a result of g) are ignored. The work is linear in the
// subscriptions and the assigned runs; memory in the topics. It runs on
// every recorded call, so topics are counted by index, not in maps keyed
// by name, and a member's assignment is found by binary search in res,
// which the engine sorts by member id.
func WorstTopicSkew(g *Group, res *Result) (int32, string) {
	var sk skew
	sk.index = make(map[string]int, len(g.Topics))
	for _, t := range g.Topics {
		sk.at(t.Name)
	}
	assigned := assignedByID(res)
	var held []int // the indices of the current member's runs
	for _, m := range g.Members {
		runs := assigned(m.ID)
		held = held[:0]
		i := -1
		for _, tp := range runs {
			i = sk.near(tp.Topic, i+1)
			held = append(held, i)
			sk.held[i] += len(tp.Partitions)
		}
		i = -1
		for _, t := range m.Topics {
			i = sk.near(t, i+1)
			n, s := sk.held[i], &sk.spreads[i]
			if !s.seen {
				*s = spread{lo: n, hi: n, seen: true}
			} else {
				s.lo, s.hi = min(s.lo, n), max(s.hi, n)
			}
		}
		for _, i := range held {
			sk.held[i] = 0
		}
	}
	var worst int32
	var topic string
	for i, s := range sk.spreads {
		if d, t := int32(s.hi-s.lo), sk.names[i]; d > worst || (d == worst && d > 0 && t < topic) {
			worst, topic = d, t
		}
	}
	return worst, topic
}

// spread is the fewest and most partitions of a topic a subscriber holds.
type spread struct {
	lo, hi int
	seen   bool // a subscriber was counted
}

// skew is WorstTopicSkew's count: each topic by index, in order of first
// sight.
type skew struct {
	index   map[string]int
	names   []string
	held    []int // partitions of each topic the current member holds
	spreads []spread
}

// at is the index of topic name, adding it at its first sight.
func (sk *skew) at(name string) int {
	if i, ok := sk.index[name]; ok {
		return i
	}
	i := len(sk.names)
	sk.index[name] = i
	sk.names = append(sk.names, name)
	sk.held = append(sk.held, 0)
	sk.spreads = append(sk.spreads, spread{})
	return i
}

// near is the index of topic name, as at, trying hint first: runs and
// subscriptions mostly list topics in the order first seen, and their
// names are mostly the very strings seen (compared by pointer first), so
// that a million of them take few map lookups. Names are unique in
// sk.names, so a match is the index at would give.
func (sk *skew) near(name string, hint int) int {
	if hint < len(sk.names) && sk.names[hint] == name {
		return hint
	}
	return sk.at(name)
}

// assignedByID finds a member's assigned partitions in res: by binary
// search when res is sorted by member id, as the engine's results are,
// else through a map.
func assignedByID(res *Result) func(id string) []TopicPartitions {
	byID := func(a MemberAssignment, id string) int { return cmp.Compare(a.ID, id) }
	if slices.IsSortedFunc(res.Members, func(a, b MemberAssignment) int { return cmp.Compare(a.ID, b.ID) }) {
		return func(id string) []TopicPartitions {
			if i, ok := slices.BinarySearchFunc(res.Members, id, byID); ok {
				return res.Members[i].Assigned
			}
			return nil
		}
	}
	m := make(map[string][]TopicPartitions, len(res.Members))
	for _, ma := range res.Members {
		m[ma.ID] = ma.Assigned
	}
	return func(id string) []TopicPartitions { return m[id] }
}
