package assign

// apply performs the chain found by augment, from the giver o to the
// receiver at its end (the member whose viaMember is -1): each member on
// it hands partitions of viaClass to viaMember.
//
// The chain carries as many partitions as it can at once. A chain of free
// partitions carries half the difference between o and the receiver, and
// no more than any member on it holds free in the class it hands on. A
// chain that takes owned partitions carries no more than any member on it
// holds in its class, and only as many as repeating it one partition at a
// time would, since each revocation must be weighed on its own (ownedUnits).
// Batching matters: without it, a member that owns tens of thousands of
// partitions and a newcomer cost a search per partition.
func (r *repairer) apply(o memberIdx) {
	x := o
	hops := 0
	for r.viaMember[x] >= 0 {
		x = r.viaMember[x]
		hops++
	}
	units := (r.count[o] - r.count[x]) / 2
	freeChain := true
	for u := o; u != x; u = r.viaMember[u] {
		if r.free[r.slot(u, r.viaClass[u])] == 0 {
			freeChain = false
		}
	}
	if !freeChain {
		units = min(units, r.ownedUnits(o, x, hops))
	}
	for u := o; u != x && units > 0; u = r.viaMember[u] {
		s := r.slot(u, r.viaClass[u])
		if freeChain {
			units = min(units, r.free[s])
		} else {
			units = min(units, r.held[s])
		}
	}
	units = max(units, 1)
	// Hop by hop from the giver, so that a member in the middle hands on
	// what it has just received (not its own partitions) where it can.
	for u := o; u != x; u = r.viaMember[u] {
		v := r.viaMember[u]
		for _, p := range r.pick(u, r.viaClass[u], v, int(units)) {
			r.move(p, u, v)
		}
	}
	r.count[o] -= units
	r.count[x] += units
}

// ownedUnits caps how many partitions a chain of owned partitions from o
// to x carries: as many as taking the cheapest chain from the most loaded
// giver to the least loaded receiver one partition at a time would move
// along this same chain.
//
// When every subscriber subscribes to the same classes (equal
// subscriptions with racks), members are interchangeable and that is what
// takes x up to the subscribers' mean count rounded down and o down to it
// rounded up. Otherwise only a direct chain is repeated, and only while o
// stays the most loaded member and x the least loaded: then nothing the
// one-at-a-time search could prefer has changed.
func (r *repairer) ownedUnits(o, x memberIdx, hops int) int32 {
	if r.uniform {
		return min(r.meanFloor-r.count[x], r.count[o]-r.meanCeil)
	}
	if hops != 1 {
		return 1
	}
	lo, hi := int32(1<<30), int32(0)
	if r.others != nil {
		lo, hi = r.others.without(o, x)
	} else {
		r.budget -= len(r.count)
		for m, ks := range r.cl.memberClasses {
			if len(ks) > 0 && memberIdx(m) != o && memberIdx(m) != x {
				lo, hi = min(lo, r.count[m]), max(hi, r.count[m])
			}
		}
	}
	return min(r.count[o]-hi, lo-r.count[x])
}

// pick chooses n partitions of class k that u hands to v: in order of
// preference ones v owned before (they go home: one move fewer), ones u
// did not own (free), then any; among equals, ones local to v's rack, off
// u's rack before on it (pickRank), then the order of u's holding list of
// the class. The result is valid until the next call.
//
// How many partitions of each preference u holds is known from the
// counters without racks (rankCounts), so the scan stops once it has n,
// and the part it read loses its stale entries (partitions u no longer
// holds) and the ones taken. With racks, a list that may hold stale
// entries is read whole, and compacted; a clean one is read like one
// without racks, the rack tally telling local from remote (or, where the
// group has too many racks for a tally, until the choice is settled:
// pickSettled). Either way the budget pays for what is read. With racks,
// what a full pick passed over moves to the end of the list, so the picks
// that skip a giver's on-rack partitions do not each read them again.
// A partition that came back to u is listed twice; marks keep it from
// being counted or taken twice.
func (r *repairer) pick(u memberIdx, k classIdx, v memberIdx, n int) []partIdx {
	if r.mark == nil {
		r.mark = make([]int32, len(r.target))
	}
	perRank, known := r.rankCounts(u, k, v)
	s := r.slot(u, k)
	r.pickedSlot = s
	list := r.holding[s]
	if r.st.rackAware {
		// A rack-aware pick compacts its whole list when the list may hold
		// stale entries; a clean one it reads like a pick without racks.
		switch {
		case r.unclean[s] > 0:
			known = false
		case !known:
			return r.pickSettled(u, k, v, s, n)
		}
	}
	if !known {
		r.unclean[s] = 0
		r.markEpoch++
		kept := list[:0]
		for _, p := range list {
			if r.target[p] != u || r.mark[p] == r.markEpoch {
				continue
			}
			r.mark[p] = r.markEpoch
			kept = append(kept, p)
			perRank[r.pickRank(p, u, v)]++
		}
		r.budget -= len(list)
		list = kept
	}
	// Take every partition of the ranks below last, and the first of rank
	// last up to n.
	last, atLast := cutRank(&perRank, n)
	r.markEpoch++
	out := r.picked[:0]
	read := 0
	for _, p := range list {
		if len(out) == n {
			break
		}
		read++
		if r.target[p] != u || r.mark[p] == r.markEpoch {
			continue
		}
		switch rank := r.pickRank(p, u, v); {
		case rank < last:
			out = append(out, p)
		case rank == last && atLast > 0:
			out = append(out, p)
			atLast--
		default:
			continue
		}
		r.mark[p] = r.markEpoch
	}
	r.budget -= read
	// Drop from the part read what u no longer holds and what it hands on
	// now (marked), in order: every later pick reads that part again, and a
	// member that gives hundreds of partitions away one at a time made each
	// pick read all it had given before.
	w := read
	for i := read - 1; i >= 0; i-- {
		if p := list[i]; r.target[p] == u && r.mark[p] != r.markEpoch {
			w--
			list[w] = p
		}
	}
	if r.st.rackAware && len(out) == n {
		// What the pick passed over goes last: with racks a giver has
		// more preferences than one kind of pick skips (its own rack's
		// partitions wait for its off-rack ones), and kept first they
		// would be read again by every pick.
		r.holding[s] = append(list[read:], list[w:read]...)
	} else {
		r.holding[s] = list[w:]
	}
	r.picked = out
	return out
}

// rankCounts counts u's partitions of class k by pickRank for v, from the
// held, free and away counters, and in rack-aware groups the rack tally;
// known is false where there is none.
func (r *repairer) rankCounts(u memberIdx, k classIdx, v memberIdx) (counts [pickRanks]int, known bool) {
	s := r.slot(u, k)
	if r.st.rackAware {
		if r.racks == nil {
			return counts, false
		}
		return r.racks.rankCounts(r, u, k, v, s), true
	}
	home := int(r.away[awayKey{v, u, k}])
	counts[0] = home
	counts[4] = int(r.free[s]) - home
	counts[8] = int(r.held[s] - r.free[s])
	return counts, true
}

// pickScratch is pick's working space, reused across picks.
type pickScratch struct {
	picked    []partIdx // pick's result
	mark      []int32   // per partition: pick saw it in markEpoch
	markEpoch int32
}

// pickRanks is the number of pick preferences.
const pickRanks = 12

// cutRank splits a pick of n partitions by rank, perRank counting the
// candidates of each: every candidate ranked below last is taken, and
// atLast of those ranked last.
func cutRank(perRank *[pickRanks]int, n int) (last, atLast int) {
	below := 0
	for last < pickRanks-1 && below+perRank[last] < n {
		below += perRank[last]
		last++
	}
	return last, n - below
}

// pickRank is p's preference as a partition u hands to v, lower first: 0
// v owned it before, 4 u did not own it, 8 u owned it; in rack-aware
// groups one more if it has no replica on v's rack, and two more if it
// has one on u's: u gives its off-rack partitions first, so it does not
// keep one while an on-rack one leaves, which realignment (KIP-881) could
// then often bring home only a follow-up later.
func (r *repairer) pickRank(p partIdx, u, v memberIdx) int {
	rank := 8
	switch prev := r.st.prev[p]; {
	case prev == v:
		rank = 0
	case prev != u:
		rank = 4
	}
	if r.st.rackAware {
		if !r.st.rackMatches(v, int32(p)) {
			rank++
		}
		if r.st.rackMatches(u, int32(p)) {
			rank += 2
		}
	}
	return rank
}

// move hands p from member u to member v, keeping held, free and holding
// current; counts are the caller's.
func (r *repairer) move(p partIdx, u, v memberIdx) {
	k := r.cl.classOf[r.st.topicOf[p]]
	su, sv := r.slot(u, k), r.slot(v, k)
	r.held[su]--
	r.held[sv]++
	if r.st.prev[p] != u {
		r.free[su]--
	}
	if r.st.prev[p] != v {
		r.free[sv]++
	}
	r.target[p] = v
	if r.st.prev[p] == u {
		r.st.setReason(int32(p), ReasonBalance) // reason: balance (repair)
	}
	if r.racks != nil {
		r.racks.move(r, p, u, v, k, su, sv)
	}
	if su != r.pickedSlot || r.mark == nil || r.mark[p] != r.markEpoch {
		r.unclean[su]++ // p stays listed under u
	}
	r.holding[sv] = append(r.holding[sv], p)
	if o := r.st.prev[p]; o >= 0 {
		if o != u {
			r.addAway(o, u, k, -1)
		}
		if o != v {
			r.addAway(o, v, k, 1)
		}
	}
}

// pickSettled is pick for a rack-aware group when u's list of class k
// (slot s) holds exactly the partitions u holds, each once, as it does
// after a full read until a partition leaves u other than by a pick
// (unclean). It reads the list only until the choice is settled: the
// counters tell how many partitions of each preference (home, free,
// owned) are still unread, though not which are local to v's rack, so
// once n of those read rank no worse than the best an unread one could,
// nothing unread can displace them (it comes later in the list, and ranks
// no better). It chooses, compacts and reorders exactly as the full read
// would: the n best by rank, then list order, taken in list order.
func (r *repairer) pickSettled(u memberIdx, k classIdx, v memberIdx, s slotIdx, n int) []partIdx {
	list := r.holding[s]
	home := int(r.away[awayKey{v, u, k}])
	left := [3]int{home, int(r.free[s]) - home, int(r.held[s] - r.free[s])}
	var perRank [pickRanks]int
	read := 0
	for read < len(list) {
		// Best effort: the pick completes (a step is whole), then the repair ends.
		r.st.stop.spent(r.budget - read)
		best := pickRanks - 1 // the best rank an unread partition may have
		for c, l := range left {
			if l > 0 {
				best = 4 * c
				break
			}
		}
		settled := 0
		for _, c := range perRank[:best+1] {
			settled += c
		}
		if settled >= n {
			break
		}
		rank := r.pickRank(list[read], u, v)
		perRank[rank]++
		left[rank/4]--
		read++
	}
	r.budget -= read
	last, atLast := cutRank(&perRank, n)
	r.markEpoch++
	out := r.picked[:0]
	w, passed := 0, 0 // passed: entries kept before the last take
	for _, p := range list[:read] {
		take := false
		if len(out) < n {
			switch rank := r.pickRank(p, u, v); {
			case rank < last:
				take = true
			case rank == last && atLast > 0:
				take = true
				atLast--
			}
		}
		if take {
			r.mark[p] = r.markEpoch
			out = append(out, p)
			passed = w
		} else {
			list[w] = p
			w++
		}
	}
	if len(out) < n {
		passed = 0
	}
	// Keep the unread rest after what was read and not taken, and, as
	// pick does, what the pick passed over (before its last take) last.
	kept := read - (w - passed)
	copy(list[kept:read], list[passed:w])
	r.holding[s] = append(list[kept:], list[:passed]...)
	r.picked = out
	return out
}
