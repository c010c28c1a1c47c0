package assign

import "slices"

// planEqual assigns when every member subscribes to the same topics. The
// result is fully balanced (partition counts differ by at most one) and
// moves as few partitions as that allows, in time linear in partitions plus
// members:
//
//  1. With T partitions and N members, every member gets T/N partitions and
//     T%N of them one more. The extra slots go first to members that already
//     own more than T/N, in member-id order, so a member that keeps its share
//     never gives one up to make room for another.
//  2. Every member keeps what it owns up to its quota (lowest partitions
//     first, by topic then partition). A partition whose replicas are not in
//     the member's rack is not kept when rack awareness applies (KIP-881).
//  3. The rest are dealt round-robin to the members below T/N, then one each
//     to members at T/N while extra slots remain. On a first assignment this
//     is a plain round robin of the partitions in (topic, partition) order
//     over the members in id order, as in the Java client; when racks apply,
//     partitions are first given to members of a rack that hosts them,
//     scarcest partitions first.
//
// Unlike the Java client, which visits members in hash-map order, every
// choice here is made in member-id order, so the plan is deterministic.
//
// With perTopic (cooperative-sticky@2), a member that must give partitions
// up chooses them so that its share of each topic stays close to an even
// share (trimPerTopic); the number of partitions that move is the same.
func planEqual(st *state, target []int32, perTopic bool) {
	n := int32(len(st.members))
	total := int32(st.numPartitions())
	if total == 0 {
		return
	}
	minQ, slots := total/n, total%n
	count := st.ints.take(int(n))
	keepable := st.ints.take(int(n))
	for i, c := range st.claims {
		m := int32(i)
		for _, p := range c {
			if st.prev[p] == m && st.rackMatches(m, p) {
				keepable[m]++
			}
		}
	}
	quota := st.ints.take(int(n))
	for m := range n {
		quota[m] = minQ
		if slots > 0 && keepable[m] > minQ {
			quota[m]++
			slots--
		}
	}
	var trim *topicTrimmer
	for i, c := range st.claims {
		m := int32(i)
		if perTopic && keepable[m] > quota[m] && len(st.topics) > 1 {
			if trim == nil {
				trim = &topicTrimmer{}
			}
			trim.keep(st, m, c, quota[m], target)
			count[m] = quota[m]
			continue
		}
		for _, p := range c {
			if count[m] == quota[m] {
				break
			}
			if st.prev[p] == m && st.rackMatches(m, p) {
				target[p] = m
				count[m]++
			}
		}
	}
	if st.rackAware {
		slots = dealByRack(st, target, count, minQ, slots)
	}
	dealRoundRobin(target, count, minQ, slots, st.ints.take(int(n))[:0])
}

// dealRoundRobin deals the unassigned partitions, ascending, round-robin to
// members below minQ, then one each, in member order, to members at minQ
// while slots remain.
func dealRoundRobin(target []int32, count []int32, minQ, slots int32, ring []int32) {
	next := 0
	nextFree := func() int {
		for next < len(target) && target[next] >= 0 {
			next++
		}
		return next
	}
	for m, c := range count {
		if c < minQ {
			ring = append(ring, int32(m))
		}
	}
	for len(ring) > 0 {
		w := 0
		for _, m := range ring {
			p := nextFree()
			if p == len(target) {
				return // cannot happen: quotas add up to the partition count
			}
			target[p] = m
			count[m]++
			if count[m] < minQ {
				ring[w] = m
				w++
			}
		}
		ring = ring[:w]
	}
	m := 0
	for p := nextFree(); p < len(target) && slots > 0; p = nextFree() {
		for m < len(count) && count[m] != minQ {
			m++
		}
		if m == len(count) {
			return // cannot happen: the slots match the members at minQ
		}
		target[p] = int32(m)
		count[m]++
		slots--
		m++
	}
}

// dealByRack gives unassigned partitions to members in a rack that hosts a
// replica (KIP-881), scarcest partitions first (those whose racks hold the
// fewest members), each to the least-loaded such member that still has room,
// members below minQ before members at it. It returns the extra slots left.
// Partitions no rack-local member can take stay unassigned for the plain
// deal.
func dealByRack(st *state, target []int32, count []int32, minQ, slots int32) int32 {
	racks := len(st.rackNames)
	perRack := make([]int32, racks)
	for _, r := range st.memberRack {
		if r >= 0 {
			perRack[r]++
		}
	}
	var free []int32
	scarcity := make([]int32, len(target))
	for p, t := range target {
		if t >= 0 {
			continue
		}
		s := int32(0)
		for _, r := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
			s += perRack[r]
		}
		if s > 0 {
			free = append(free, int32(p))
			scarcity[p] = s
		}
	}
	slices.SortStableFunc(free, func(a, b int32) int { return int(scarcity[a] - scarcity[b]) })

	less := func(a, b int32) bool { return count[a] < count[b] || (count[a] == count[b] && a < b) }
	heaps := make([]memberHeap, racks)
	for r := range heaps {
		heaps[r].less = less
	}
	for m, r := range st.memberRack {
		if r >= 0 && count[m] <= minQ {
			heaps[r].push(int32(m))
		}
	}
	eligible := func(m int32) bool { return count[m] < minQ || (count[m] == minQ && slots > 0) }
	for _, p := range free {
		best := int32(-1)
		for _, r := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
			h := &heaps[r]
			for h.len() > 0 && !eligible(h.peek()) {
				h.pop()
			}
			if h.len() > 0 && (best < 0 || less(h.peek(), best)) {
				best = h.peek()
			}
		}
		if best < 0 {
			continue
		}
		heaps[st.memberRack[best]].pop()
		if count[best] == minQ {
			slots--
		}
		target[p] = best
		count[best]++
		if eligible(best) {
			heaps[st.memberRack[best]].push(best)
		}
	}
	return slots
}
