package assign

import "slices"

// searchScratch is the searches' working space, reused across searches,
// and the chain the last one found (viaMember, viaClass), which apply
// follows. An entry of dist or classDist is only valid when its stamp
// equals epoch.
type searchScratch struct {
	epoch      int32
	dist       []int32
	distStamp  []int32
	viaMember  []memberIdx // per member u: the member u hands to on the chain, -1 at its end
	viaClass   []classIdx  // per member u: the class u hands on
	classDist  []int32
	classStamp []int32
	deque      []memberIdx
	inQueue    []int32     // stamp: the member is in searchWithReturns' queue
	reached    []memberIdx // members searchWithReturns labelled
}

// unreached is the distance of a member or class no search has reached.
const unreached = int32(1 << 30)

// search runs the backward 0-1 breadth-first search from the receivers xs
// and returns the giver better chosen among the cheapest (better(o, best)
// reports whether o beats the best so far, best < 0 meaning none), or -1.
// The chain is left in viaMember and viaClass.
func (r *repairer) search(xs []memberIdx, freeOnly bool, better func(o, best memberIdx) bool) memberIdx {
	r.epoch++
	distOf := func(v memberIdx) int32 {
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
	best, bestDist := memberIdx(-1), unreached
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
				u := memberIdx(u)
				r.budget--
				cost, ok := r.hopCost(r.subSlot[k][i], freeOnly)
				if !ok {
					continue
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

// hopCost is what handing one of slot s's partitions on costs the search:
// 0 when one of them is free (its holder did not own it before), 1 when
// all are held ones; ok is false when s has none, or only held ones and
// freeOnly is set.
func (r *repairer) hopCost(s slotIdx, freeOnly bool) (cost int32, ok bool) {
	switch {
	case r.held[s] == 0:
		return 0, false
	case r.free[s] > 0:
		return 0, true
	case freeOnly:
		return 0, false
	}
	return 1, true
}
