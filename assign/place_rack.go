package assign

// placeByRack gives the partitions in free to subs, the subscribers of one
// class, in a rack-aware group, as the Java client's sticky assignors deal
// unassigned partitions (AbstractStickyAssignor, kafka-java-assignors.md
// §3.4 steps 2-3 and §3.5 balance step 2):
//
//  1. partitions with replica racks, in partition order, go to the
//     least-loaded subscriber on one of their racks; only when no
//     subscriber is on any of them, to the least-loaded subscriber
//     without a rack (never off its rack);
//  2. the rest go to the least-loaded subscriber, ties by index.
//
// Preferring a member on the partition's rack over a member without one,
// and placing the partitions with racks before those that fit anywhere,
// is what lets a cooperative follow-up settle: the partitions realign
// revoked in the round before are unowned now, and placed on their racks
// they leave realign nothing to move again (KIP-881); were a member
// without a rack at the same count to take one, realign would revoke
// another partition to fill the on-rack member: one more follow-up.
// (Unlike the Java client, the partitions are not dealt
// scarcest first: with the least-loaded choice here that leaves a few
// partitions of a first assignment off their racks, see
// TestRackAwareLocalityAndStickiness.) Step 1 may leave a member above
// the others; the repair that follows restores balance, preferring
// rack-local receivers.
//
// Lazy heaps per rack keep it O(partitions × racks per partition × log
// members).
func placeByRack(st *state, subs []int32, free []int32, target []memberIdx, count []int32) {
	byRack := make([]countHeap, len(st.rackNames))
	var noRack, all countHeap
	add := func(m memberIdx) {
		e := countEntry{m, count[m]}
		all.push(e)
		if r := st.memberRack[m]; r >= 0 {
			byRack[r].push(e)
		} else {
			noRack.push(e)
		}
	}
	for _, m := range subs {
		add(memberIdx(m))
	}
	give := func(p int32, m memberIdx) {
		target[p] = m
		count[m]++
		add(m)
	}
	// Partitions with replica racks first, in partition order: the rest
	// then fill whoever has room left.
	racked := make([]int32, 0, len(free))
	for _, p := range free {
		if st.partRackIdx[p] < st.partRackIdx[p+1] {
			racked = append(racked, p)
		}
	}
	for i, p := range racked {
		st.stop.at(i)
		best, found := countEntry{}, false
		for _, r := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
			if e, ok := byRack[r].top(count); ok && (!found || countLess(e, best)) {
				best, found = e, true
			}
		}
		if !found {
			best, found = noRack.top(count)
		}
		if found {
			give(p, best.m)
		}
	}
	for i, p := range free {
		st.stop.at(i)
		if target[p] < 0 {
			best, _ := all.top(count)
			give(p, best.m)
		}
	}
}
