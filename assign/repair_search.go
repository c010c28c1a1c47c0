package assign

import "slices"

// augment looks for the cheapest chain to any of the receivers xs (all at
// the same load) from a member with at least want partitions, where
// handing on a free partition costs 0 and an owned one 1: a 0-1
// breadth-first search backwards from the receivers over members and
// topic classes. Among the cheapest chains it takes the one from the most
// loaded giver. With freeOnly, only free chains count. If it finds one, it
// performs the moves (apply) and reports true.
func (r *repairer) augment(xs []int32, want int32, freeOnly bool) bool {
	better := func(v, best int32) bool {
		return r.count[v] >= want && (best < 0 || r.count[v] > r.count[best])
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
func (r *repairer) relieveAlike(xs []int32, level, top, d int32) {
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
		if r.budget <= 0 || r.st.stop.spent(r.budget) {
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
func (r *repairer) search(xs []int32, freeOnly bool, better func(v, best int32) bool) int32 {
	r.epoch++
	distOf := func(v int32) int32 {
		if r.distStamp[v] != r.epoch {
			return unreached
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
	best, bestDist := int32(-1), unreached
	for front < back {
		r.st.stop.spent(r.budget) // best effort: the search ends, then the repair
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
