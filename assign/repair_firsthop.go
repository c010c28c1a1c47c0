package assign

// firstHop re-chooses, in a rack-aware group, the first hand-over of the
// chain the search found from the giver o, when that hand-over would give
// up a partition on o's own rack while o keeps one off it (in another
// class: the pick gives off-rack partitions of a class first). Among the
// members w that o can hand to at the same total cost (w's own chain as
// cheap as the one o had, and not running back through o), it takes the
// one for which o's best pick ranks best (pickRank), if that ranks better.
//
// The search keeps the first of several equally cheap chains it labels,
// which depends on the order it reaches members, not on locality. So a
// giver handed a member on no rack of its class an on-rack partition,
// kept its off-rack one of another class, and realignment (KIP-881) then
// moved that one as well: one move more than the Java client, which gives
// the off-rack partition up first, to a member on its rack that passes a
// free partition on (issue 27, the rack-aware joiner family of
// java-oracle.md). The choice costs one pass over the subscribers of o's
// classes, no more than the search did.
func (r *repairer) firstHop(o memberIdx, freeOnly bool) {
	if !r.st.rackAware || r.viaMember[o] < 0 {
		return
	}
	bestRank := r.handRankTo(o, r.viaClass[o], r.viaMember[o])
	if !freeOnly && (!givesOwnRack(bestRank) || !r.holdsOffRack(o)) {
		return
	}
	d := r.dist[o]
	for i, k := range r.cl.memberClasses[o] {
		cost, ok := r.hopCost(r.classOff[o]+slotIdx(i), freeOnly)
		if !ok {
			continue
		}
		for _, w := range r.cl.subscribers[k] {
			w := memberIdx(w)
			r.budget--
			if w == o || r.distStamp[w] != r.epoch || r.dist[w]+cost != d {
				continue
			}
			if rank := r.handRankTo(o, k, w); rank < bestRank && !r.chainThrough(w, o) {
				bestRank, r.viaMember[o], r.viaClass[o] = rank, w, k
			}
		}
	}
}

// givesOwnRack reports whether a hand-over of this pickRank gives up a
// partition the giver owned with a replica on its own rack.
func givesOwnRack(rank int) bool { return rank >= 8 && rank < pickRanks && rank%4 >= 2 }

// chainThrough reports whether the chain the search left from w passes
// through o (handing o's first hop to w would then close a loop).
func (r *repairer) chainThrough(w, o memberIdx) bool {
	for steps := 0; w >= 0 && steps <= len(r.count); steps++ {
		if w == o {
			return true
		}
		w = r.viaMember[w]
	}
	return w >= 0 // longer than the group: a loop already, refuse it
}

// holdsOffRack reports whether m, on a rack, holds a partition none of
// whose replicas is on it: from the rack tally, or by reading m's lists.
func (r *repairer) holdsOffRack(m memberIdx) bool {
	if r.st.memberRack[m] < 0 {
		return false
	}
	for s := r.classOff[m]; s < r.classOff[m+1]; s++ {
		if r.racks != nil {
			if r.racks.slotOwn[s] < r.held[s] {
				return true
			}
			continue
		}
		r.budget -= len(r.holding[s])
		for _, p := range r.holding[s] {
			if r.target[p] == m && !r.st.rackMatches(m, int32(p)) {
				return true
			}
		}
	}
	return false
}

// mayHandThrough reports whether firstHop could re-choose the hand-over of
// o's partitions of class k to v: o would give up one on its own rack
// while it holds one off it. With the rack tally both are counter reads,
// and the cheaper, whether o holds anything off its rack (a scale-out's
// owners rarely do), goes first; without it, each reads lists.
func (r *repairer) mayHandThrough(o memberIdx, k classIdx, v memberIdx) bool {
	if r.racks != nil {
		return r.holdsOffRack(o) && givesOwnRack(r.handRankTo(o, k, v))
	}
	return givesOwnRack(r.handRankTo(o, k, v)) && r.holdsOffRack(o)
}
