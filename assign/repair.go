package assign

import "slices"

// repair evens out the members' partition counts after placement, moving
// as few previously owned partitions as it can.
//
// The goal is the most even distribution the subscriptions allow: no chain
// of moves o → y1 → … → x, each handing on a partition of a topic the next
// member subscribes to, may lead from a member o to a member x with at least
// two fewer partitions. (The Java client's isBalanced asks only that no
// single move helps; this goal implies it.) The distribution of counts that
// meets it is unique, whatever the starting point, which is what makes a
// cooperative group converge: the round after a revocation reaches the
// same counts, and since the previous round's plan shows they can be reached
// by placing the withheld partitions alone, it moves nothing owned again.
//
// Each step takes the least loaded member that such a chain can reach and
// follows the chain that hands on the fewest partitions their holder owned
// before this round (free partitions cost nothing to move: nobody is
// consuming them). It runs in two phases: first chains of free partitions only, then
// chains that may take owned ones. Every step lowers the sum of squared
// counts by at least two, so the loop ends; a work budget proportional to
// the input bounds it all the same, so that no input can make the repair
// spin (librdkafka #4783); a plan cut short by it, like one a best-effort
// stop cut short, carries a warning and asks for a follow-up (cutShort).
//
// Where few members can give (a scale-out), fillFromGivers takes the
// searches' steps without searching, so the work is that of the partitions
// moved rather than a search over the group per partition.
//
// Names, throughout the repair: a chain runs from its giver o to its
// receiver x; along it each member u hands partitions of class k to the
// next member v (viaMember[u] = v, viaClass[u] = k); m is any member, p a
// partition and s a slot, one member's subscription to one class (slot).
//
// The repair's files follow its flow: this one is the loop (relieveOnce,
// augment, relieveAlike, then homecoming); repair_state.go its bookkeeping
// and work budget; repair_search.go and repair_search_returns.go the
// searches for a chain; repair_fill.go the scale-out shortcut; and
// repair_chain.go executing a chain (apply, pick, move), with
// repair_racks.go the rack tally its picks read.
func repair(st *state, cl *topicClasses, target []memberIdx, count []int32) {
	if !unevenSubscribers(cl, count) || st.stop.skip() {
		return
	}
	r := newRepairer(st, cl, target, count)
	for _, freeOnly := range []bool{true, false} {
		// Help the least loaded members first, all of them at once, from
		// the cheapest giver any of them can reach: choosing one receiver
		// at a time could pay for a long chain where a neighbour at the
		// same load had a short one.
		for r.budget > 0 && !st.stop.spent(r.budget) && r.relieveOnce(freeOnly) {
		}
	}
	if r.budget <= 0 {
		// Valid but maybe not balanced: Run finishes it as a plan cut
		// short (cutShort), with a warning and, under COOPERATIVE, a
		// follow-up that carries on from here.
		st.workLimitCut = true
	}
	r.homecoming()
}

// unevenSubscribers reports whether some subscribers' counts differ by two
// or more; if none do, no chain can help and the plan is already even.
func unevenSubscribers(cl *topicClasses, count []int32) bool {
	lo, hi, any := int32(0), int32(0), false
	for m, ks := range cl.memberClasses {
		if len(ks) == 0 {
			continue
		}
		if c := count[m]; !any {
			lo, hi, any = c, c, true
		} else {
			lo, hi = min(lo, c), max(hi, c)
		}
	}
	return any && hi-lo >= 2
}

// relieveOnce performs one augmentation for the lowest load level that has
// one, and reports whether it found any.
func (r *repairer) relieveOnce(freeOnly bool) bool {
	most := r.mostSubscriberCount()
	order := r.byLoad()
	r.budget -= len(order)
	for i := 0; i < len(order); {
		if r.st.stop.spent(r.budget) {
			return false
		}
		level := r.count[order[i]]
		if most-level < 2 {
			return false
		}
		j := i
		for j < len(order) && r.count[order[j]] == level {
			j++
		}
		if i == 0 && !freeOnly {
			if r.fillFromGivers(order, j) {
				return true
			}
			if r.st.stop.spent(r.budget) {
				return false // a best-effort stop ended the fill
			}
		}
		if r.augment(order[i:j], level+2, freeOnly) {
			return true
		}
		if r.budget <= 0 {
			return false
		}
		i = j
	}
	return false
}

// handRank is the best pickRank among the partitions o would hand on
// first along the chain the search left (to viaMember[o], of
// viaClass[o]).
func (r *repairer) handRank(o memberIdx) int {
	if v := r.viaMember[o]; v >= 0 {
		return r.handRankTo(o, r.viaClass[o], v)
	}
	return pickRanks
}

// handRankTo is the best pickRank among the partitions of class k that u
// holds, as partitions for v: from the counters and the rack tally where
// they tell, else by reading u's list of the class.
func (r *repairer) handRankTo(u memberIdx, k classIdx, v memberIdx) int {
	if !r.st.rackAware {
		// rankCounts' three counters, read without building them: a
		// partition going home (only where something is away from its
		// owner), a free one, an owned one.
		s := r.slot(u, k)
		switch {
		case r.held[s] == 0:
			return pickRanks
		case r.awayAll > 0 && r.away[awayKey{v, u, k}] > 0:
			return 0
		case r.free[s] > 0:
			return 4
		}
		return 8
	}
	if counts, known := r.rankCounts(u, k, v); known {
		for rank, c := range counts {
			if c > 0 {
				return rank
			}
		}
		return pickRanks
	}
	s := r.slot(u, k)
	best := pickRanks
	r.budget -= len(r.holding[s])
	for _, p := range r.holding[s] {
		if r.target[p] == u {
			best = min(best, r.pickRank(p, u, v))
		}
	}
	return best
}

// holdsFree reports whether m holds a partition it did not own before
// this round.
func (r *repairer) holdsFree(m memberIdx) bool {
	for _, f := range r.free[r.classOff[m]:r.classOff[m+1]] {
		if f > 0 {
			return true
		}
	}
	return false
}

// augment looks for the cheapest chain to any of the receivers xs (all at
// the same load) from a member with at least want partitions, where
// handing on a free partition costs 0 and an owned one 1: a 0-1
// breadth-first search backwards from the receivers over members and
// topic classes. Among the cheapest chains it takes the one from the most
// loaded giver, and among those the one whose first hand-over is the best
// pick (handRank): a giver that can send a partition home, or one that
// holds a partition off its own rack, gives before one that would give
// up an on-rack partition and keep the off-rack one for realignment to
// move as well (issue 27: one move more than the Java client); and the
// chosen giver's first hand-over is chosen again among the equally cheap
// ones by the same rule (firstHop). With
// freeOnly, only free chains count. If it finds one, it performs the
// moves (apply) and reports true.
func (r *repairer) augment(xs []memberIdx, want int32, freeOnly bool) bool {
	bestOf, bestRank := memberIdx(-1), 0
	better := func(o, best memberIdx) bool {
		if r.count[o] < want {
			return false
		}
		if best < 0 || r.count[o] > r.count[best] {
			bestOf = -1
			return true
		}
		if r.count[o] < r.count[best] {
			return false
		}
		if bestOf != best {
			bestOf, bestRank = best, r.handRank(best)
		}
		if rank := r.handRank(o); rank < bestRank {
			bestOf, bestRank = o, rank
			return true
		}
		return false
	}
	var best memberIdx
	if freeOnly {
		best = r.search(xs, true, better)
	} else {
		best = r.searchWithReturns(xs, better)
	}
	if best < 0 {
		return false
	}
	r.firstHop(best, freeOnly)
	level, top, d := r.count[xs[0]], r.count[best], r.dist[best]
	v := r.viaMember[best]
	direct := v >= 0 && r.viaMember[v] < 0
	r.apply(best)
	if !freeOnly && !r.uniform && direct {
		r.relieveAlike(xs, level, top, d)
	}
	return true
}

// relieveAlike continues a step of the owned phase without searching
// again: every other giver the search found as good as the one it took (as
// loaded, at the same cost, handing over directly) hands one partition of
// its chain's class to a receiver still at level that subscribes to the
// class, each giver and receiver once. These are the steps the searches
// that would follow take one by one: the search's distances stay exact
// along hand-overs it did not use (successive shortest paths), the givers
// stay the most loaded and the receivers the least. Without it, a
// scale-out of hundreds of members with unequal subscriptions costs a
// search over all members per partition moved.
func (r *repairer) relieveAlike(xs []memberIdx, level, top, d int32) {
	if len(r.alike) != len(r.cl.subscribers) {
		r.alike = make([][]memberIdx, len(r.cl.subscribers))
	}
	for k := range r.alike {
		r.alike[k] = r.alike[k][:0]
	}
	for _, x := range xs {
		if r.count[x] == level {
			for _, k := range r.cl.memberClasses[x] {
				r.alike[k] = append(r.alike[k], x)
			}
		}
	}
	for o := range memberIdx(len(r.count)) {
		r.budget--
		if r.budget <= 0 || r.st.stop.spent(r.budget) {
			return
		}
		if r.distStamp[o] != r.epoch || r.dist[o] != d || r.count[o] != top {
			continue
		}
		if v := r.viaMember[o]; v < 0 || r.viaMember[v] >= 0 {
			continue // not a direct hand-over
		}
		k := r.viaClass[o]
		s := r.slot(o, k)
		cost := int32(1)
		if r.free[s] > 0 {
			cost = 0
		}
		if r.held[s] == 0 || cost != d {
			continue
		}
		receivers := r.alike[k]
		for len(receivers) > 0 && r.count[receivers[0]] != level {
			receivers = receivers[1:]
		}
		r.alike[k] = receivers
		if len(receivers) == 0 {
			continue
		}
		x := receivers[0]
		r.move(r.pick(o, k, x, 1)[0], o, x)
		r.count[o]--
		r.count[x]++
	}
}

// homecoming sends moved partitions back to their previous owners where a
// chain of free partitions from that owner to the partition's new holder
// makes room: v hands a free partition along to u, u hands p back to v.
// Counts do not change, and each return is one move fewer. Balancing one
// receiver at a time can leave such detours (a member hands its own
// partition on, and later receives a free one that could have gone in its
// place); this pass removes them.
func (r *repairer) homecoming() {
	for u := range memberIdx(len(r.count)) {
		for s := r.classOff[u]; s < r.classOff[u+1]; s++ {
			if !r.homecomingOf(u, s) {
				return
			}
		}
	}
}

// homecomingOf returns home what it can of the partitions u holds in its
// slot s; false when the budget ran out.
func (r *repairer) homecomingOf(u memberIdx, s slotIdx) bool {
	st := r.st
	for i := 0; i < len(r.holding[s]); i++ {
		st.stop.at(i)
		p := r.holding[s][i]
		v := st.prev[p]
		if r.target[p] != u || v < 0 || v == u || !st.keepable(v, int32(p)) {
			continue
		}
		if r.budget <= 0 || st.stop.spent(r.budget) {
			return false
		}
		// The chain starts with v handing on a free partition: without
		// one, no search can reach v. (A scale-out moves thousands of
		// partitions away from members that received none; a search for
		// each would cost seconds.)
		if !r.holdsFree(v) {
			continue
		}
		if r.search([]memberIdx{u}, true, func(w, _ memberIdx) bool { return w == v }) != v {
			continue
		}
		for w := v; w != u; w = r.viaMember[w] {
			next := r.viaMember[w]
			r.move(r.pick(w, r.viaClass[w], next, 1)[0], w, next)
		}
		r.move(p, u, v)
	}
	return true
}

// mostSubscriberCount is the largest count among members that subscribe
// to something. It never increases during the repair: a receiver ends at
// least one below what its giver had.
func (r *repairer) mostSubscriberCount() int32 {
	most := int32(0)
	for m, ks := range r.cl.memberClasses {
		if len(ks) > 0 {
			most = max(most, r.count[m])
		}
	}
	return most
}

// byLoad lists the members that subscribe to something, least loaded
// first, ties by index.
func (r *repairer) byLoad() []memberIdx {
	order := make([]memberIdx, 0, len(r.count))
	for m, ks := range r.cl.memberClasses {
		if len(ks) > 0 {
			order = append(order, memberIdx(m))
		}
	}
	slices.SortStableFunc(order, func(a, b memberIdx) int { return int(r.count[a] - r.count[b]) })
	return order
}
