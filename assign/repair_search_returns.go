package assign

import "slices"

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
func (r *repairer) searchWithReturns(xs []memberIdx, better func(o, best memberIdx) bool) memberIdx {
	r.epoch++
	epoch := r.epoch
	distOf := func(v memberIdx) int32 {
		if r.distStamp[v] != epoch {
			return unreached
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
	relax := func(u, v memberIdx, k classIdx, nd int32) {
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
		r.st.stop.spent(r.budget) // best effort: the search ends, then the repair
		if relaxations > limit {
			r.deque, r.reached = queue[:0], reached[:0]
			return r.search(xs, false, better)
		}
		v := queue[head]
		r.inQueue[v] = 0
		d := r.dist[v]
		for _, k := range r.cl.memberClasses[v] {
			r.budget--
			if r.classStamp[k] == epoch && r.classDist[k] <= d {
				continue
			}
			r.classDist[k], r.classStamp[k] = d, epoch
			for i, u := range r.cl.subscribers[k] {
				u := memberIdx(u)
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
			if r.away[awayKey{v, e.u, e.k}] == 0 {
				continue
			}
			kept = append(kept, e)
			// v takes back a partition of e.k only if it still subscribes
			// to the class (keepable; every topic of a class has the same
			// subscribers).
			if _, subscribed := slices.BinarySearch(r.cl.memberClasses[v], e.k); subscribed {
				relax(e.u, v, e.k, d-1)
			}
		}
		r.awayFrom[v] = kept
	}
	best, bestDist := memberIdx(-1), unreached
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
