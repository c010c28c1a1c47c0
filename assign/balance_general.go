package assign

import "slices"

// planGeneral assigns when members subscribe to different topics. It keeps
// every owned partition the owner may still consume, places the rest, and
// then repairs balance with as few moves as it can find:
//
//  1. Keep: a member keeps what it owned of topics it still subscribes to.
//  2. Place: topics are grouped into classes with identical subscribers
//     (classes.go). Classes are filled fewest subscribers first, since their
//     partitions have the fewest places to go; within a class the
//     unassigned partitions fill the least-loaded subscribers up to an even
//     level (water-filling), counting what each member can expect from the
//     classes still to come, dealt round-robin so that topics spread.
//  3. Repair (repair.go): while some member holds a partition that a
//     subscriber with at least two fewer partitions could take, move one.
//  4. Realign (KIP-881, rack-aware groups): partitions kept off their
//     owner's rack go to members on a replica's rack where the balance
//     allows; see realign.
//
// The result is balanced in the sense the issue and the Java client's
// isBalanced use: no partition could move to another subscriber of its
// topic that has two or more fewer partitions.
func planGeneral(st *state, target []memberIdx) {
	count := st.ints.take(len(st.members))
	for m, p := range st.ownedClaims() {
		if st.keepable(m, p) {
			target[p] = m
			count[m]++
		} else {
			st.setReason(p, ReasonUnsubscribed) // reason: unsubscribed
		}
	}
	cl := newTopicClasses(st)
	order := make([]classIdx, len(cl.subscribers))
	for k := range order {
		order[k] = classIdx(k)
	}
	slices.SortStableFunc(order, func(a, b classIdx) int { return len(cl.subscribers[a]) - len(cl.subscribers[b]) })
	// Each member's expected share of the classes still to fill.
	freeIn := make([]int64, len(cl.subscribers))
	step := 0
	for p, m := range target {
		st.stop.at(p)
		if m < 0 {
			freeIn[cl.classOf[st.topicOf[p]]]++
		}
	}
	expect := make([]int64, len(st.members))
	share := func(k classIdx) int64 { return freeIn[k] * shareUnit / int64(len(cl.subscribers[k])) }
	for k, subs := range cl.subscribers {
		step = st.stop.over(step, len(subs))
		for _, m := range subs {
			expect[m] += share(classIdx(k))
		}
	}
	var free []int32
	for _, k := range order {
		step = st.stop.over(step, len(cl.subscribers[k]))
		for _, m := range cl.subscribers[k] {
			expect[m] -= share(k)
		}
		if freeIn[k] == 0 {
			continue
		}
		free = free[:0]
		for _, t := range cl.topics[k] {
			for p := st.start[t]; p < st.start[t+1]; p++ {
				st.stop.at(int(p))
				if target[p] < 0 {
					free = append(free, p)
				}
			}
		}
		if st.rackAware {
			placeByRack(st, cl.subscribers[k], free, target, count)
		} else {
			waterFill(cl.subscribers[k], free, target, count, expect, &st.stop)
		}
	}
	st.stop.phase = "repair"
	repairPlan(st, cl, target, count)
	st.stop.phase = "realign"
	realign(st, cl, target, count)
}

// repairPlan is the repair planGeneral runs: repair, or in tests the
// reference it is checked against (TestRepairMatchesReference).
var repairPlan = repair

// shareUnit scales partition counts in waterFill, so that a member's
// expected share of classes still to be filled can be a fraction.
const shareUnit = 1 << 16

// waterFill gives the partitions in free to subs, least loaded first, so
// that the members end as even as the class allows. A member's load is its
// count plus expect[m], its expected share of the classes not filled yet
// (each class's free partitions divided by its subscribers): without it the
// first classes would fill their members up to a level that later classes
// then push past their neighbours'. Partitions are dealt round-robin over
// the receiving members so that each one's share spreads across topics.
func waterFill(subs []int32, free []int32, target []memberIdx, count []int32, expect []int64, stop *stopper) {
	load := func(m int32) int64 { return int64(count[m])*shareUnit + expect[m] }
	// need(level) is how many partitions raise every member to level.
	need := func(level int64) int64 {
		n := int64(0)
		for _, m := range subs {
			if l := load(m); l < level {
				n += (level - l + shareUnit - 1) / shareUnit
			}
		}
		return n
	}
	avail := int64(len(free))
	lo := load(subs[0])
	for _, m := range subs[1:] {
		lo = min(lo, load(m))
	}
	hi := lo + avail*shareUnit // the least loaded alone would need avail
	for lo < hi {              // the highest level that avail partitions reach
		mid := lo + (hi-lo+1)/2
		if need(mid) <= avail {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	allot := make([]int32, len(subs))
	given := int64(0)
	for i, m := range subs {
		if l := load(m); l < lo {
			allot[i] = int32((lo - l + shareUnit - 1) / shareUnit)
			given += int64(allot[i])
		}
	}
	if rest := avail - given; rest > 0 {
		// One more each to the members left lowest, ties by member index.
		order := make([]int, len(subs))
		for i := range order {
			order[i] = i
		}
		after := func(i int) int64 { return load(subs[i]) + int64(allot[i])*shareUnit }
		slices.SortStableFunc(order, func(a, b int) int {
			if x, y := after(a), after(b); x != y {
				if x < y {
					return -1
				}
				return 1
			}
			return int(subs[a] - subs[b])
		})
		for _, i := range order[:rest] {
			allot[i]++
		}
	}
	ring := make([]int32, 0, len(subs))
	for i := range subs {
		if allot[i] > 0 {
			ring = append(ring, int32(i))
		}
	}
	next := 0
	for len(ring) > 0 {
		w := 0
		for _, i := range ring {
			stop.at(next)
			m := subs[i]
			target[free[next]] = memberIdx(m)
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
