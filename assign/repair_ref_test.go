package assign

// The repair as it was before fillFromGivers and the rack-aware picks that
// read only what they take: one search over all members per step, so that
// a scale-out paid one per partition moved. Kept as the oracle of
// TestRepairMatchesReference: the repair must produce its plans byte for
// byte. Identifiers carry the prefix ref; its work budget is unlimited.

import "slices"

// refRepair evens out the members' partition counts after placement, moving
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
// counts by at least two, so the loop ends; a work budget bounds it all the
// same, so that no input can make a refRepair spin (librdkafka #4783), and
// a plan cut short by it carries a warning.
func refRepair(st *state, cl *topicClasses, target []memberIdx, count []int32) {
	if !refUnevenSubscribers(cl, count) {
		return
	}
	r := newRefRepairer(st, cl, target, count)
	for _, freeOnly := range []bool{true, false} {
		// Help the least loaded members first, all of them at once, from
		// the cheapest giver any of them can reach: choosing one receiver
		// at a time could pay for a long chain where a neighbour at the
		// same load had a short one.
		for r.budget > 0 && r.relieveOnce(freeOnly) {
		}
	}
	if r.budget <= 0 {
		// Valid but maybe not balanced: Run finishes it as a plan cut
		// short (cutShort).
		st.workLimitCut = true
	}
	r.homecoming()
}

// refUnevenSubscribers reports whether some subscribers' counts differ by two
// or more; if none do, no chain can help and the plan is already even.
func refUnevenSubscribers(cl *topicClasses, count []int32) bool {
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

type refRepairer struct {
	st     *state
	cl     *topicClasses
	target []memberIdx
	count  []int32

	// held[classOff[m]+i] counts the partitions member m holds in its i-th
	// class (cl.memberClasses[m][i]); free the subset it did not own before
	// this round.
	held, free []int32
	classOff   []int32
	// subSlot[k][i] is the slot of cl.subscribers[k][i] in class k: the
	// searches walk every subscriber of a class and would otherwise look
	// each slot up again (half of their time).
	subSlot [][]int32
	// holding[classOff[m]+i] lists the partitions member m was given in
	// its i-th class, in order (stale entries are skipped): a pick reads
	// only the class it hands on.
	holding [][]int32
	// away counts, per member v, holder u and class k, the partitions of
	// k that v owned before this round and u holds now; awayFrom[v] lists
	// the (u, k) pairs that may have some (pairs whose count fell to zero
	// are dropped when the list is next read). Counting per pair rather
	// than listing partitions keeps a search's cost independent of how
	// many partitions have moved.
	away     map[refAwayKey]int32
	awayFrom [][]refAwayEdge
	budget   int
	// The mean count of the members that subscribe to something, rounded
	// down and up, and whether they all subscribe to the same classes (see
	// ownedUnits).
	meanFloor, meanCeil int32
	uniform             bool

	// Scratch space of augment, reused across searches; an entry of dist
	// or classDist is only valid when its stamp equals epoch.
	epoch      int32
	dist       []int32
	distStamp  []int32
	viaMember  []int32
	viaClass   []int32
	classDist  []int32
	classStamp []int32
	deque      []int32
	inQueue    []int32 // stamp: the member is in searchWithReturns' queue
	reached    []int32 // members searchWithReturns labelled
	picked     []int32 // pick's result, reused
	mark       []int32 // per partition: pick saw it in this epoch
	markEpoch  int32
	alike      [][]int32 // relieveAlike's receivers by class, reused
}

func newRefRepairer(st *state, cl *topicClasses, target []memberIdx, count []int32) *refRepairer {
	n := len(st.members)
	r := &refRepairer{st: st, cl: cl, target: target, count: count}
	r.classOff = make([]int32, n+1)
	for m := range n {
		r.classOff[m+1] = r.classOff[m] + int32(len(cl.memberClasses[m]))
	}
	r.held = make([]int32, r.classOff[n])
	r.subSlot = make([][]int32, len(cl.subscribers))
	flatSlots := make([]int32, 0, r.classOff[n])
	for k, subs := range cl.subscribers {
		start := len(flatSlots)
		for _, m := range subs {
			flatSlots = append(flatSlots, r.slot(m, int32(k)))
		}
		r.subSlot[k] = flatSlots[start:len(flatSlots):len(flatSlots)]
	}
	r.free = make([]int32, r.classOff[n])
	slots := int(r.classOff[n])
	begin := make([]int32, slots+1)
	for p, m := range target {
		if m >= 0 {
			i := r.slot(int32(m), int32(cl.classOf[st.topicOf[p]]))
			begin[i+1]++
			r.held[i]++
			if st.prev[p] != m {
				r.free[i]++
			}
		}
	}
	for i := range slots {
		begin[i+1] += begin[i]
	}
	flat := make([]int32, begin[slots])
	fill := slices.Clone(begin[:slots])
	for p, m := range target {
		if m >= 0 {
			i := r.slot(int32(m), int32(cl.classOf[st.topicOf[p]]))
			flat[fill[i]] = int32(p)
			fill[i]++
		}
	}
	r.holding = make([][]int32, slots)
	for i := range slots {
		r.holding[i] = flat[begin[i]:begin[i+1]:begin[i+1]]
	}
	var total, subscribers int
	var first []classIdx
	r.uniform = true
	for m := range n {
		if ks := cl.memberClasses[m]; len(ks) > 0 {
			total += int(count[m])
			subscribers++
			if first == nil {
				first = ks
			} else if !slices.Equal(first, ks) {
				r.uniform = false
			}
		}
	}
	if subscribers > 0 {
		r.meanFloor = int32(total / subscribers)
		r.meanCeil = int32((total + subscribers - 1) / subscribers)
	}
	r.away = make(map[refAwayKey]int32)
	r.awayFrom = make([][]refAwayEdge, n)
	for p, m := range target {
		if o := st.prev[p]; o >= 0 && m >= 0 && m != o {
			r.addAway(int32(o), int32(m), int32(cl.classOf[st.topicOf[p]]), 1)
		}
	}
	r.budget = max(64*(len(target)+int(r.classOff[n])), 8*n*(n+int(r.classOff[n])), refMinRepairBudget)
	r.dist = make([]int32, n)
	r.distStamp = make([]int32, n)
	r.viaMember = make([]int32, n)
	r.viaClass = make([]int32, n)
	r.classDist = make([]int32, len(cl.subscribers))
	r.classStamp = make([]int32, len(cl.subscribers))
	return r
}

// refMinRepairBudget is the least work budget of a repair. It lets small
// groups over many topics finish in one round: a refRepair costs the whole
// group far more than the ~0.2 s that 2^25 steps take, and 2^23 made a
// 100-member group on 500 topics take two follow-ups to place one
// newcomer. A variable so that tests can make a repair run out.
var refMinRepairBudget = 1 << 62

// refAwayKey is a member v, a member u and a class k: see refRepairer.away.
type refAwayKey struct{ v, u, k int32 }

// refAwayEdge is a holder u of partitions of class k another member owned.
type refAwayEdge struct{ u, k int32 }

// addAway adds delta to the partitions of class k owned by v and held by u.
func (r *refRepairer) addAway(v, u, k, delta int32) {
	key := refAwayKey{v, u, k}
	n := r.away[key]
	switch {
	case n+delta == 0:
		delete(r.away, key)
	case n == 0:
		r.away[key] = delta
		r.awayFrom[v] = append(r.awayFrom[v], refAwayEdge{u, k})
	default:
		r.away[key] = n + delta
	}
}

// slot returns the index in held and free of member m's class k.
func (r *refRepairer) slot(m, k int32) int32 {
	i, _ := slices.BinarySearch(r.cl.memberClasses[m], classIdx(k))
	return r.classOff[m] + int32(i)
}

// mostSubscriberCount is the largest count among members that subscribe
// to something. It never increases during refRepair: a receiver ends at
// least one below what its giver had.
func (r *refRepairer) mostSubscriberCount() int32 {
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
func (r *refRepairer) byLoad() []int32 {
	order := make([]int32, 0, len(r.count))
	for m, ks := range r.cl.memberClasses {
		if len(ks) > 0 {
			order = append(order, int32(m))
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return int(r.count[a] - r.count[b]) })
	return order
}

const refUnreached = int32(1 << 30)

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
func (r *refRepairer) apply(o int32) {
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
func (r *refRepairer) ownedUnits(o, x int32, hops int) int32 {
	if r.uniform {
		return min(r.meanFloor-r.count[x], r.count[o]-r.meanCeil)
	}
	if hops != 1 {
		return 1
	}
	lo, hi := int32(1<<30), int32(0)
	r.budget -= len(r.count)
	for m, ks := range r.cl.memberClasses {
		if len(ks) > 0 && int32(m) != o && int32(m) != x {
			lo, hi = min(lo, r.count[m]), max(hi, r.count[m])
		}
	}
	return min(r.count[o]-hi, lo-r.count[x])
}

// pick chooses n partitions of class k that u hands to v: in order of
// preference ones v owned before (they go home: one move fewer), ones u
// did not own (free), then any; among equals, ones local to v's rack, off
// u's rack before on it, then the order of u's holding list of the class.
// The result is valid until the next call.
//
// How many partitions of each preference u holds is known from the
// counters without racks (rankCounts), so the scan stops once it has n,
// and the part it read loses its stale entries (partitions u no longer
// holds) and the ones taken. With racks the whole list is read, and
// compacted, and what a pick passed over moves to the end of the list
// (as the repair's pick does). Either way the budget pays for what is
// read. A partition that came back to u is listed twice; marks keep it
// from being counted or taken twice.
func (r *refRepairer) pick(u, k, v int32, n int) []int32 {
	if r.mark == nil {
		r.mark = make([]int32, len(r.target))
	}
	perRank, known := r.rankCounts(u, k, v)
	s := r.slot(u, k)
	list := r.holding[s]
	if !known {
		r.markEpoch++
		kept := list[:0]
		for _, p := range list {
			if r.target[p] != memberIdx(u) || r.mark[p] == r.markEpoch {
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
	last, below := 0, 0
	for last < refPickRanks-1 && below+perRank[last] < n {
		below += perRank[last]
		last++
	}
	atLast := n - below
	r.markEpoch++
	out := r.picked[:0]
	read := 0
	for _, p := range list {
		if len(out) == n {
			break
		}
		read++
		if r.target[p] != memberIdx(u) || r.mark[p] == r.markEpoch {
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
		if p := list[i]; r.target[p] == memberIdx(u) && r.mark[p] != r.markEpoch {
			w--
			list[w] = p
		}
	}
	if r.st.rackAware && len(out) == n {
		// What the pick passed over goes last: with racks a giver has
		// more preferences than one kind of pick skips (its own rack's
		// partitions wait for its off-rack ones), and kept first they
		// would be read again by every pick.
		r.holding[s] = append(list[read:len(list):len(list)], list[w:read]...)
	} else {
		r.holding[s] = list[w:]
	}
	r.picked = out
	return out
}

// rankCounts counts u's partitions of class k by pickRank for v, from the
// held, free and away counters; known is false in rack-aware groups,
// where the counters do not tell local from remote.
func (r *refRepairer) rankCounts(u, k, v int32) (counts [refPickRanks]int, known bool) {
	if r.st.rackAware {
		return counts, false
	}
	s := r.slot(u, k)
	home := int(r.away[refAwayKey{v, u, k}])
	counts[0] = home
	counts[4] = int(r.free[s]) - home
	counts[8] = int(r.held[s] - r.free[s])
	return counts, true
}

// handRank is the best pickRank among the partitions u would hand on
// first along the chain the search left.
func (r *refRepairer) handRank(u int32) int {
	v, k := r.viaMember[u], r.viaClass[u]
	if v < 0 {
		return refPickRanks
	}
	best := refPickRanks
	for _, p := range r.holding[r.slot(u, k)] {
		if r.target[p] == memberIdx(u) {
			best = min(best, r.pickRank(p, u, v))
		}
	}
	return best
}

// refPickRanks is the number of pick preferences.
const refPickRanks = 12

// pickRank is p's preference as a partition u hands to v, lower first: 0
// v owned it before, 4 u did not own it, 8 u owned it; in rack-aware
// groups one more if it has no replica on v's rack, and two more if it has
// one on u's (u gives its off-rack partitions first).
func (r *refRepairer) pickRank(p, u, v int32) int {
	rank := 8
	switch prev := r.st.prev[p]; {
	case prev == memberIdx(v):
		rank = 0
	case prev != memberIdx(u):
		rank = 4
	}
	if r.st.rackAware {
		if !r.st.rackMatches(memberIdx(v), p) {
			rank++
		}
		if r.st.rackMatches(memberIdx(u), p) {
			rank += 2
		}
	}
	return rank
}

// move hands p from member u to member v, keeping held, free and holding
// current; counts are the caller's.
func (r *refRepairer) move(p, u, v int32) {
	k := int32(r.cl.classOf[r.st.topicOf[p]])
	su, sv := r.slot(u, k), r.slot(v, k)
	r.held[su]--
	r.held[sv]++
	if r.st.prev[p] != memberIdx(u) {
		r.free[su]--
	}
	if r.st.prev[p] != memberIdx(v) {
		r.free[sv]++
	}
	r.target[p] = memberIdx(v)
	if r.st.prev[p] == memberIdx(u) {
		r.st.setReason(p, ReasonBalance)
	}
	r.holding[sv] = append(r.holding[sv], p)
	if o := r.st.prev[p]; o >= 0 {
		if o != memberIdx(u) {
			r.addAway(int32(o), u, k, -1)
		}
		if o != memberIdx(v) {
			r.addAway(int32(o), v, k, 1)
		}
	}
}

// homecoming sends moved partitions back to their previous owners where a
// chain of free partitions from that owner to the partition's new holder
// makes room: v hands a free partition along to u, u hands p back to v.
// Counts do not change, and each return is one move fewer. Balancing one
// receiver at a time can leave such detours (a member hands its own
// partition on, and later receives a free one that could have gone in its
// place); this pass removes them.
func (r *refRepairer) homecoming() {
	for u := range int32(len(r.count)) {
		for s := r.classOff[u]; s < r.classOff[u+1]; s++ {
			if !r.homecomingOf(u, s) {
				return
			}
		}
	}
}

// homecomingOf returns home what it can of the partitions u holds in its
// slot s; false when the budget ran out.
func (r *refRepairer) homecomingOf(u, s int32) bool {
	st := r.st
	for i := 0; i < len(r.holding[s]); i++ {
		p := r.holding[s][i]
		v := int32(st.prev[p])
		if r.target[p] != memberIdx(u) || v < 0 || v == u || !st.keepable(memberIdx(v), p) {
			continue
		}
		if r.budget <= 0 {
			return false
		}
		// The chain starts with v handing on a free partition: without
		// one, no search can reach v. (A scale-out moves thousands of
		// partitions away from members that received none; searching for
		// each cost seconds.)
		if !r.holdsFree(v) {
			continue
		}
		if r.search([]int32{u}, true, func(w, _ int32) bool { return w == v }) != v {
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

// holdsFree reports whether m holds a partition it did not own before
// this round.
func (r *refRepairer) holdsFree(m int32) bool {
	for _, f := range r.free[r.classOff[m]:r.classOff[m+1]] {
		if f > 0 {
			return true
		}
	}
	return false
}

// relieveOnce performs one augmentation for the lowest load level that has
// one, and reports whether it found any.
func (r *refRepairer) relieveOnce(freeOnly bool) bool {
	most := r.mostSubscriberCount()
	order := r.byLoad()
	for i := 0; i < len(order); {
		level := r.count[order[i]]
		if most-level < 2 {
			return false
		}
		j := i
		for j < len(order) && r.count[order[j]] == level {
			j++
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

// augment looks for the cheapest chain to any of the receivers xs (all at
// the same load) from a member with at least want partitions, where
// handing on a free partition costs 0 and an owned one 1: a 0-1
// breadth-first search backwards from the receivers over members and
// topic classes. Among the cheapest chains it takes the one from the most
// loaded giver. With freeOnly, only free chains count. If it finds one, it
// performs the moves (apply) and reports true.
func (r *refRepairer) augment(xs []int32, want int32, freeOnly bool) bool {
	// The most loaded giver, among equals the one whose first hand-over
	// is the best pick (refHandRank), then the first found.
	better := func(v, best int32) bool {
		if r.count[v] < want {
			return false
		}
		if best < 0 || r.count[v] > r.count[best] {
			return true
		}
		return r.count[v] == r.count[best] && r.handRank(v) < r.handRank(best)
	}
	var best int32
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
func (r *refRepairer) relieveAlike(xs []int32, level, top, d int32) {
	if len(r.alike) != len(r.cl.subscribers) {
		r.alike = make([][]int32, len(r.cl.subscribers))
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
	for g := range int32(len(r.count)) {
		r.budget--
		if r.budget <= 0 {
			return
		}
		if r.distStamp[g] != r.epoch || r.dist[g] != d || r.count[g] != top {
			continue
		}
		if v := r.viaMember[g]; v < 0 || r.viaMember[v] >= 0 {
			continue // not a direct hand-over
		}
		k := r.viaClass[g]
		s := r.slot(g, k)
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
		r.move(r.pick(g, k, x, 1)[0], g, x)
		r.count[g]--
		r.count[x]++
	}
}

// search runs the backward 0-1 breadth-first search from the receivers xs
// and returns the giver better chosen among the cheapest (better(v, best)
// reports whether v beats the best so far, best < 0 meaning none), or -1.
// The chain is left in viaMember and viaClass.
func (r *refRepairer) search(xs []int32, freeOnly bool, better func(v, best int32) bool) int32 {
	r.epoch++
	distOf := func(v int32) int32 {
		if r.distStamp[v] != r.epoch {
			return refUnreached
		}
		return r.dist[v]
	}
	// The deque holds members; pushFront for cost-0 edges, pushBack for 1.
	head := len(r.count) + 1
	r.deque = slices.Grow(r.deque[:0], 2*head+len(xs))[:2*head+len(xs)]
	front, back := head, head
	for _, x := range xs {
		r.dist[x], r.distStamp[x], r.viaMember[x] = 0, r.epoch, -1
		r.deque[back] = x
		back++
	}
	best, bestDist := int32(-1), refUnreached
	for front < back {
		v := r.deque[front]
		front++
		d := r.dist[v]
		if d > bestDist {
			break // the deque is in distance order: nothing cheaper follows
		}
		if better(v, best) {
			best, bestDist = v, d
		}
		for _, k := range r.cl.memberClasses[v] {
			k := int32(k)
			r.budget--
			if r.classStamp[k] == r.epoch && r.classDist[k] <= d {
				continue
			}
			r.classDist[k], r.classStamp[k] = d, r.epoch
			for i, u := range r.cl.subscribers[k] {
				r.budget--
				s := r.subSlot[k][i]
				if r.held[s] == 0 {
					continue
				}
				cost := int32(0)
				if r.free[s] == 0 {
					if freeOnly {
						continue
					}
					cost = 1
				}
				nd := d + cost
				if nd > bestDist || distOf(u) <= nd {
					continue
				}
				r.dist[u], r.distStamp[u], r.viaMember[u], r.viaClass[u] = nd, r.epoch, v, k
				if cost == 0 {
					front--
					r.deque[front] = u
				} else {
					if back == len(r.deque) {
						r.deque = append(r.deque, u)
					} else {
						r.deque[back] = u
					}
					back++
				}
			}
		}
	}
	return best
}

// searchWithReturns is search for chains that may take owned partitions,
// where a chain may also hand a partition back to the member that owned it
// before this round, at cost -1 (one move undone). Those edges are what
// make repeated cheapest chains add up to the fewest moves overall (the
// successive-shortest-path rule of min-cost flow): without them an early,
// locally cheap move can never be taken back when a later chain would
// rather route through it.
//
// With negative edges the search is a label-correcting one (Bellman-Ford
// with a queue). Cheapest chains never leave a negative cycle behind, but
// a cap on relaxations guards against one all the same: if it trips, the
// search falls back to search, which has no negative edges.
func (r *refRepairer) searchWithReturns(xs []int32, better func(v, best int32) bool) int32 {
	r.epoch++
	epoch := r.epoch
	distOf := func(v int32) int32 {
		if r.distStamp[v] != epoch {
			return refUnreached
		}
		return r.dist[v]
	}
	if len(r.inQueue) != len(r.count) {
		r.inQueue = make([]int32, len(r.count))
	}
	queue := r.deque[:0]
	reached := r.reached[:0]
	for _, x := range xs {
		r.dist[x], r.distStamp[x], r.viaMember[x] = 0, epoch, -1
		r.inQueue[x] = epoch
		queue = append(queue, x)
		reached = append(reached, x)
	}
	relaxations := 0
	limit := 64*(len(r.count)+len(r.held)) + 1024
	relax := func(u, v, k, nd int32) {
		if distOf(u) <= nd {
			return
		}
		if r.distStamp[u] != epoch {
			reached = append(reached, u)
		}
		r.dist[u], r.distStamp[u], r.viaMember[u], r.viaClass[u] = nd, epoch, v, k
		relaxations++
		if r.inQueue[u] != epoch {
			r.inQueue[u] = epoch
			queue = append(queue, u)
		}
	}
	for head := 0; head < len(queue); head++ {
		if relaxations > limit {
			r.deque, r.reached = queue[:0], reached[:0]
			return r.search(xs, false, better)
		}
		v := queue[head]
		r.inQueue[v] = 0
		d := r.dist[v]
		for _, k := range r.cl.memberClasses[v] {
			k := int32(k)
			r.budget--
			if r.classStamp[k] == epoch && r.classDist[k] <= d {
				continue
			}
			r.classDist[k], r.classStamp[k] = d, epoch
			for i, u := range r.cl.subscribers[k] {
				r.budget--
				s := r.subSlot[k][i]
				if r.held[s] == 0 || u == v {
					continue
				}
				cost := int32(1)
				if r.free[s] > 0 {
					cost = 0
				}
				relax(u, v, k, d+cost)
			}
		}
		kept := r.awayFrom[v][:0]
		for _, e := range r.awayFrom[v] {
			r.budget--
			if r.away[refAwayKey{v, e.u, e.k}] == 0 {
				continue
			}
			kept = append(kept, e)
			// v takes back a partition of e.k only if it still subscribes
			// to the class (keepable; every topic of a class has the same
			// subscribers).
			if _, subscribed := slices.BinarySearch(r.cl.memberClasses[v], classIdx(e.k)); subscribed {
				relax(e.u, v, e.k, d-1)
			}
		}
		r.awayFrom[v] = kept
	}
	best, bestDist := int32(-1), refUnreached
	for _, v := range reached {
		d := r.dist[v]
		if d < bestDist && better(v, -1) {
			best, bestDist = v, d
		} else if d == bestDist && better(v, best) {
			best = v
		}
	}
	r.deque, r.reached = queue[:0], reached[:0]
	return best
}

// firstHop: in a rack-aware group, where o's first hand-over would give up
// a partition on its own rack while it holds one off it, the member w it
// can hand to at the same cost (dist[w] plus the hand-over's, w's chain
// not through o) whose best pick ranks best, in the order of o's classes
// and their subscribers; the first of equals.
func (r *refRepairer) firstHop(o int32, freeOnly bool) {
	if !r.st.rackAware || r.viaMember[o] < 0 {
		return
	}
	rankTo := func(k, w int32) int {
		best := refPickRanks
		for _, p := range r.holding[r.slot(o, k)] {
			if r.target[p] == memberIdx(o) {
				best = min(best, r.pickRank(p, o, w))
			}
		}
		return best
	}
	bestRank := rankTo(r.viaClass[o], r.viaMember[o])
	if !freeOnly && (bestRank < 8 || bestRank%4 < 2 || !r.holdsOffRack(o)) {
		return
	}
	for _, k := range r.cl.memberClasses[o] {
		k := int32(k)
		s := r.slot(o, k)
		if r.held[s] == 0 {
			continue
		}
		cost := int32(1)
		if r.free[s] > 0 {
			cost = 0
		} else if freeOnly {
			continue
		}
		for _, w := range r.cl.subscribers[k] {
			w := int32(w)
			if w == o || r.distStamp[w] != r.epoch || r.dist[w]+cost != r.dist[o] {
				continue
			}
			through := false
			for u, n := w, 0; u >= 0 && n <= len(r.count); u, n = r.viaMember[u], n+1 {
				through = through || u == o
			}
			if rank := rankTo(k, w); rank < bestRank && !through {
				bestRank, r.viaMember[o], r.viaClass[o] = rank, w, k
			}
		}
	}
}

// holdsOffRack reports whether m, on a rack, holds a partition none of
// whose replicas is on it.
func (r *refRepairer) holdsOffRack(m int32) bool {
	if r.st.memberRack[m] < 0 {
		return false
	}
	for s := r.classOff[m]; s < r.classOff[m+1]; s++ {
		for _, p := range r.holding[s] {
			if r.target[p] == memberIdx(m) && !r.st.rackMatches(memberIdx(m), p) {
				return true
			}
		}
	}
	return false
}
