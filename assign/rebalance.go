package assign

import "slices"

// rebalance evens out the members' partition counts after placement, moving
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
// Each step takes the most loaded member that has such a chain and follows
// the chain that hands on the fewest partitions their holder owned before
// this round (free partitions cost nothing to move: nobody is consuming
// them). It runs in two phases: first chains of free partitions only, then
// chains that may take owned ones. Every step lowers the sum of squared
// counts by at least two, so the loop ends; a work budget bounds it all the
// same, so that no input can make a rebalance spin (librdkafka #4783).
func rebalance(st *state, cl *topicClasses, target, count []int32) {
	if !unevenSubscribers(cl, count) {
		return
	}
	r := newRebalancer(st, cl, target, count)
	for _, freeOnly := range []bool{true, false} {
		for r.budget > 0 {
			improved := false
			least := r.leastSubscriberCount()
			for _, o := range r.byLoad() {
				if r.count[o]-least < 2 {
					break // byLoad is descending: nobody after o can give
				}
				for r.budget > 0 && r.augment(o, freeOnly) {
					improved = true
				}
			}
			if !improved {
				break
			}
		}
	}
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

type rebalancer struct {
	st     *state
	cl     *topicClasses
	target []int32
	count  []int32

	// held[classOff[m]+i] counts the partitions member m holds in its i-th
	// class (cl.memberClasses[m][i]); free the subset it did not own before
	// this round.
	held, free []int32
	classOff   []int32
	holding    [][]int32 // per member, partitions it was given (stale entries are skipped)
	budget     int

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
}

func newRebalancer(st *state, cl *topicClasses, target, count []int32) *rebalancer {
	n := len(st.members)
	r := &rebalancer{st: st, cl: cl, target: target, count: count}
	r.classOff = make([]int32, n+1)
	for m := range n {
		r.classOff[m+1] = r.classOff[m] + int32(len(cl.memberClasses[m]))
	}
	r.held = make([]int32, r.classOff[n])
	r.free = make([]int32, r.classOff[n])
	begin := make([]int32, n+1)
	for p, m := range target {
		if m >= 0 {
			begin[m+1]++
			i := r.slot(m, cl.classOf[st.topicOf[p]])
			r.held[i]++
			if st.prev[p] != m {
				r.free[i]++
			}
		}
	}
	for m := range n {
		begin[m+1] += begin[m]
	}
	flat := make([]int32, begin[n])
	fill := slices.Clone(begin[:n])
	for p, m := range target {
		if m >= 0 {
			flat[fill[m]] = int32(p)
			fill[m]++
		}
	}
	r.holding = make([][]int32, n)
	for m := range n {
		r.holding[m] = flat[begin[m]:begin[m+1]:begin[m+1]]
	}
	r.budget = max(64*(len(target)+int(r.classOff[n])), 1<<22)
	r.dist = make([]int32, n)
	r.distStamp = make([]int32, n)
	r.viaMember = make([]int32, n)
	r.viaClass = make([]int32, n)
	r.classDist = make([]int32, len(cl.subscribers))
	r.classStamp = make([]int32, len(cl.subscribers))
	return r
}

// slot returns the index in held and free of member m's class k.
func (r *rebalancer) slot(m, k int32) int32 {
	i, _ := slices.BinarySearch(r.cl.memberClasses[m], k)
	return r.classOff[m] + int32(i)
}

// leastSubscriberCount is the smallest count among members that subscribe
// to something. It never decreases during rebalance: a giver keeps at least
// two more than its receiver had.
func (r *rebalancer) leastSubscriberCount() int32 {
	least := unreached
	for m, ks := range r.cl.memberClasses {
		if len(ks) > 0 {
			least = min(least, r.count[m])
		}
	}
	return least
}

// byLoad lists the members, most loaded first, ties by index.
func (r *rebalancer) byLoad() []int32 {
	order := make([]int32, len(r.count))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return int(r.count[b] - r.count[a]) })
	return order
}

const unreached = int32(1 << 30)

// augment looks for the cheapest chain from o to a member with at least two
// fewer partitions, where handing on a free partition costs 0 and an owned
// one 1 (a 0-1 breadth-first search over members and topic classes); among
// the cheapest it ends at the least loaded member. With freeOnly, only free
// chains count. If it finds one, it performs the moves (apply) and reports
// true.
func (r *rebalancer) augment(o int32, freeOnly bool) bool {
	limit := r.count[o] - 2
	if limit < 0 {
		return false
	}
	r.epoch++
	distOf := func(v int32) int32 {
		if r.distStamp[v] != r.epoch {
			return unreached
		}
		return r.dist[v]
	}
	// The deque holds members; pushFront for cost-0 edges, pushBack for 1.
	head := len(r.count) + 1
	r.deque = slices.Grow(r.deque[:0], 2*head)[:2*head]
	front, back := head, head
	r.dist[o], r.distStamp[o] = 0, r.epoch
	r.deque[back] = o
	back++
	best, bestDist := int32(-1), unreached
	for front < back {
		u := r.deque[front]
		front++
		d := r.dist[u]
		if d > bestDist {
			break // the deque is in distance order: nothing cheaper follows
		}
		if u != o && r.count[u] <= limit && (best < 0 || r.count[u] < r.count[best]) {
			best, bestDist = u, d
		}
		for i, k := range r.cl.memberClasses[u] {
			r.budget--
			s := r.classOff[u] + int32(i)
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
			if nd > bestDist || (r.classStamp[k] == r.epoch && r.classDist[k] <= nd) {
				continue
			}
			r.classDist[k], r.classStamp[k] = nd, r.epoch
			for _, v := range r.cl.subscribers[k] {
				r.budget--
				if distOf(v) <= nd {
					continue
				}
				r.dist[v], r.distStamp[v], r.viaMember[v], r.viaClass[v] = nd, r.epoch, u, k
				if cost == 0 {
					if front == 0 {
						// Cannot happen: each member enters the front at most
						// once per distance, and the deque has room for all.
						continue
					}
					front--
					r.deque[front] = v
				} else {
					if back == len(r.deque) {
						r.deque = append(r.deque, v)
					} else {
						r.deque[back] = v
					}
					back++
				}
			}
		}
	}
	if best < 0 {
		return false
	}
	r.apply(o, best)
	return true
}

// apply performs the chain found by augment, from its end x back to o. A
// chain of free partitions carries as many as it can at once (half the
// difference between o and x, and no more than any member on it holds
// free in the class it hands on); a chain that takes owned partitions
// carries one, so that each revocation is weighed on its own.
func (r *rebalancer) apply(o, x int32) {
	units := (r.count[o] - r.count[x]) / 2
	for v := x; v != o && units > 0; v = r.viaMember[v] {
		units = min(units, r.free[r.slot(r.viaMember[v], r.viaClass[v])])
	}
	units = max(units, 1)
	for range units {
		for v := x; v != o; v = r.viaMember[v] {
			u, k := r.viaMember[v], r.viaClass[v]
			r.move(r.pick(u, k, v), u, v)
		}
	}
	r.count[o] -= units
	r.count[x] += units
}

// pick chooses the partition of class k that u hands to v: in order of
// preference one v owned before (it goes home: one move fewer), one u did
// not own (free), then any; among equals, one local to v's rack.
func (r *rebalancer) pick(u, k, v int32) int32 {
	st := r.st
	best, bestRank := int32(-1), 1<<30
	for _, p := range r.holding[u] {
		if r.target[p] != u || r.cl.classOf[st.topicOf[p]] != k {
			continue
		}
		rank := 4
		switch prev := st.prev[p]; {
		case prev == v:
			rank = 0
		case prev != u:
			rank = 2
		}
		if st.rackAware && !st.rackMatches(v, p) {
			rank++
		}
		if rank < bestRank {
			best, bestRank = p, rank
			if rank == 0 {
				break
			}
		}
	}
	return best
}

// move hands p from member u to member v, keeping held, free and holding
// current; counts are the caller's.
func (r *rebalancer) move(p, u, v int32) {
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
	r.holding[v] = append(r.holding[v], p)
}
