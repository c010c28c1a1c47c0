package assign

// apply performs the chain found by augment, from the giver o to the
// receiver at its end (the member whose viaMember is -1): each member on
// it hands a partition of viaClass to viaMember. A chain of free
// partitions carries as many as it can at once (half the difference
// between o and the receiver, and no more than any member on it holds
// free in the class it hands on); a chain that takes owned partitions
// carries one, so that each revocation is weighed on its own.
func (r *rebalancer) apply(o int32) {
	x := o
	for r.viaMember[x] >= 0 {
		x = r.viaMember[x]
	}
	units := (r.count[o] - r.count[x]) / 2
	for u := o; u != x && units > 0; u = r.viaMember[u] {
		units = min(units, r.free[r.slot(u, r.viaClass[u])])
	}
	units = max(units, 1)
	for range units {
		for u := o; u != x; u = r.viaMember[u] {
			v := r.viaMember[u]
			r.move(r.pick(u, r.viaClass[u], v), u, v)
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
	if o := r.st.prev[p]; o >= 0 && o != v {
		r.awayFrom[o] = append(r.awayFrom[o], p)
	}
}

// homecoming sends moved partitions back to their previous owners where a
// chain of free partitions from that owner to the partition's new holder
// makes room: v hands a free partition along to u, u hands p back to v.
// Counts do not change, and each return is one move fewer. Balancing one
// receiver at a time can leave such detours (a member hands its own
// partition on, and later receives a free one that could have gone in its
// place); this pass removes them.
func (r *rebalancer) homecoming() {
	st := r.st
	for u := range int32(len(r.count)) {
		for i := 0; i < len(r.holding[u]); i++ {
			p := r.holding[u][i]
			v := st.prev[p]
			if r.target[p] != u || v < 0 || v == u || !st.keepable(v, p) {
				continue
			}
			if r.budget <= 0 {
				return
			}
			if r.search([]int32{u}, true, func(w, _ int32) bool { return w == v }) != v {
				continue
			}
			for w := v; w != u; w = r.viaMember[w] {
				next := r.viaMember[w]
				r.move(r.pick(w, r.viaClass[w], next), w, next)
			}
			r.move(p, u, v)
		}
	}
}

// relieveOnce performs one augmentation for the lowest load level that has
// one, and reports whether it found any.
func (r *rebalancer) relieveOnce(freeOnly bool) bool {
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
