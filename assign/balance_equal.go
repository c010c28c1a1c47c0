package assign

// planEqual assigns when every member subscribes to the same topics. The
// result is fully balanced (partition counts differ by at most one) and
// moves as few partitions as that allows, in time linear in partitions plus
// members:
//
//  1. With T partitions and N members, every member gets T/N partitions and
//     T%N of them one more. The extra slots go first to members that already
//     own more than T/N, in member-id order, so a member that keeps its share
//     never gives one up to make room for another.
//  2. Every member keeps what it owns up to its quota. A member that owns
//     more keeps its lowest partition numbers first, topics in name order
//     at each number, as the Java client does (trim_partition.go): a member
//     that owned two whole topics keeps half of each, not one topic. What
//     the members over quota give up is what the members below it receive,
//     so they give up no more of a topic than the receivers' even share of
//     it, each receiver's rounded up, while they hold another topic with
//     room ([trimRoom]): when every member owns partition i of each topic,
//     a newcomer gets one partition of each topic, not all of the last.
//  3. The rest are dealt round-robin to the members below T/N, then one each
//     to members at T/N while extra slots remain. On a first assignment this
//     is a plain round robin of the partitions in (topic, partition) order
//     over the members in id order, as in the Java client. (Rack-aware
//     groups take the general plan; see stickyPlan.)
//
// Unlike the Java client, which visits members in hash-map order, every
// choice here is made in member-id order, so the plan is deterministic.
//
// With perTopic (cooperative-sticky@2), a member that must give partitions
// up chooses them so that its share of each topic stays close to an even
// share (topicTrimmer); the number of partitions that move is the same.
func planEqual(st *state, target []memberIdx, perTopic bool) {
	n := int32(len(st.members))
	total := int32(st.numPartitions())
	if total == 0 {
		return
	}
	minQ, slots := total/n, total%n
	count := st.ints.take(int(n))
	keepable := st.ints.take(int(n))
	for m := range st.ownedClaims() {
		keepable[m]++
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
	var lowest *partitionTrimmer
	var room *trimRoom
	if len(st.topics) > 1 && !st.stop.skip() {
		for m := range n {
			if keepable[m] > quota[m] {
				room = newTrimRoom(st, keepable, quota, slots)
				break
			}
		}
	}
	for i, c := range st.claims {
		m := memberIdx(i)
		// Trimming per topic is a refinement: stopped (best effort), the
		// member keeps what version 1 keeps.
		if perTopic && keepable[m] > quota[m] && len(st.topics) > 1 && !st.stop.skip() {
			if trim == nil {
				trim = &topicTrimmer{}
			}
			trim.keep(st, m, c, quota[m], target, room)
			count[m] = quota[m]
			continue
		}
		// Over quota with several topics: the Java client's order decides
		// what stays (trim_partition.go). With one topic, or within quota,
		// ascending order keeps the same partitions.
		if keepable[m] > quota[m] && len(st.topics) > 1 {
			if lowest == nil {
				lowest = &partitionTrimmer{}
			}
			lowest.keep(st, m, c, quota[m], target, room)
			count[m] = quota[m]
			continue
		}
		step := 0
		for j, p := range c {
			st.stop.at(step)
			step++
			if count[m] == quota[m] {
				st.markTrimmed(m, c[j:]) // reason: balance (over quota)
				break
			}
			if st.prev[p] == m {
				target[p] = m
				count[m]++
			}
		}
	}
	dealRoundRobin(target, count, minQ, slots, takeAs[memberIdx](&st.ints, int(n))[:0], &st.stop)
}

// dealRoundRobin deals the unassigned partitions, ascending, round-robin to
// members below minQ, then one each, in member order, to members at minQ
// while slots remain.
func dealRoundRobin(target []memberIdx, count []int32, minQ, slots int32, ring []memberIdx, stop *stopper) {
	next := 0
	nextFree := func() int {
		for next < len(target) && target[next] >= 0 {
			stop.at(next)
			next++
		}
		return next
	}
	for m, c := range count {
		if c < minQ {
			ring = append(ring, memberIdx(m))
		}
	}
	for len(ring) > 0 {
		w := 0
		for _, m := range ring {
			p := nextFree()
			stop.at(p)
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
		target[p] = memberIdx(m)
		count[m]++
		slots--
		m++
	}
}
