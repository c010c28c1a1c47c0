package assign

import "slices"

// planGeneral assigns when members subscribe to different topics. It keeps
// every owned partition the owner may still consume, places the rest, and
// then repairs balance with as few moves as it can find:
//
//  1. Keep: a member keeps what it owned of topics it still subscribes to
//     (and, when racks apply, whose replicas are in its rack).
//  2. Place: topics are grouped into classes with identical subscribers
//     (classes.go). Classes are filled fewest subscribers first, since their
//     partitions have the fewest places to go; within a class the
//     unassigned partitions fill the least-loaded subscribers up to an even
//     level (water-filling), dealt round-robin so that topics spread.
//  3. Repair (rebalance.go): while some member holds a partition that a
//     subscriber with at least two fewer partitions could take, move one.
//
// The result is balanced in the sense the issue and the Java client's
// isBalanced use: no partition could move to another subscriber of its
// topic that has two or more fewer partitions.
func planGeneral(st *state, target []int32) {
	count := make([]int32, len(st.members))
	for i, c := range st.claims {
		m := int32(i)
		for _, p := range c {
			if st.prev[p] == m && st.keepable(m, p) {
				target[p] = m
				count[m]++
			}
		}
	}
	cl := newTopicClasses(st)
	order := make([]int32, len(cl.subscribers))
	for k := range order {
		order[k] = int32(k)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return len(cl.subscribers[a]) - len(cl.subscribers[b]) })
	var free []int32
	for _, k := range order {
		free = free[:0]
		for _, t := range cl.topics[k] {
			for p := st.start[t]; p < st.start[t+1]; p++ {
				if target[p] < 0 {
					free = append(free, p)
				}
			}
		}
		if len(free) == 0 {
			continue
		}
		if st.rackAware {
			placeByRack(st, cl.subscribers[k], free, target, count)
		} else {
			waterFill(cl.subscribers[k], free, target, count)
		}
	}
	rebalance(st, cl, target, count)
}

// waterFill gives the partitions in free to subs, raising the least-loaded
// members first until all are at an even level; the members that end one
// above the level are the ones that started lowest (then lowest index).
// Partitions are dealt round-robin over the receiving members so that each
// one's share spreads across topics.
func waterFill(subs []int32, free []int32, target []int32, count []int32) {
	order := slices.Clone(subs)
	slices.SortFunc(order, func(a, b int32) int {
		if count[a] != count[b] {
			return int(count[a] - count[b])
		}
		return int(a - b)
	})
	remaining := int32(len(free))
	level := count[order[0]]
	j := 1 // order[:j] are raised to level
	for j < len(order) && count[order[j]] == level {
		j++
	}
	for remaining > 0 {
		if j < len(order) {
			next := count[order[j]]
			if need := (next - level) * int32(j); need <= remaining {
				remaining -= need
				level = next
				for j < len(order) && count[order[j]] == level {
					j++
				}
				continue
			}
		}
		inc := remaining / int32(j)
		level += inc
		remaining -= inc * int32(j)
		break
	}
	// order[:j] end at level, the first `remaining` of them at level+1.
	allot := make([]int32, j)
	ring := make([]int32, 0, j)
	for i := range j {
		allot[i] = level - count[order[i]]
		if int32(i) < remaining {
			allot[i]++
		}
		if allot[i] > 0 {
			ring = append(ring, int32(i))
		}
	}
	next := 0
	for len(ring) > 0 {
		w := 0
		for _, i := range ring {
			m := order[i]
			target[free[next]] = m
			next++
			count[m]++
			allot[i]--
			if allot[i] > 0 {
				ring[w] = i
				w++
			}
		}
		ring = ring[:w]
	}
}

// placeByRack gives each partition in free to the least-loaded subscriber
// whose rack hosts a replica (members without a rack match any partition),
// or to the least-loaded subscriber when none does (KIP-881: rack locality
// is preferred, never at the cost of leaving a partition unassigned).
func placeByRack(st *state, subs []int32, free []int32, target []int32, count []int32) {
	for _, p := range free {
		best, bestLocal := int32(-1), false
		for _, m := range subs {
			local := st.rackMatches(m, p)
			switch {
			case best < 0,
				local && !bestLocal,
				local == bestLocal && count[m] < count[best]:
				best, bestLocal = m, local
			}
		}
		target[p] = best
		count[best]++
	}
}
