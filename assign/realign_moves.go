package assign

// The moves realign makes; each keeps the plan balanced (see realign).

// exchange trades p with a partition that a member on one of p's replica
// racks kept off its own rack and that p's owner's rack hosts.
func (ra *realigner) exchange(p int32) bool {
	st := ra.st
	o := ra.target[p]
	ro := st.memberRack[o]
	tp := st.topicOf[p]
	for _, r := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
		q := ra.wants[rackPair{r, ro}]
		if q == nil {
			continue
		}
		for q.head < len(q.ps) && !ra.misaligned(q.ps[q.head]) {
			q.head++
		}
		for i := q.head; i < len(q.ps); i++ {
			if !ra.look() {
				return false
			}
			x := q.ps[i]
			if !ra.misaligned(x) {
				continue
			}
			v := ra.target[x]
			if (ra.count[v] != ra.count[o] && !ra.even) || !st.subscribes(v, tp) || !st.subscribes(o, st.topicOf[x]) {
				continue
			}
			ra.rehome(p, v)
			ra.rehome(x, o)
			return true
		}
	}
	return false
}

// trade gives p's owner o, for p, a partition on its rack that the plan
// hands to another member v this round, when v's rack hosts a replica of
// p. (A member without a rack does not qualify: the follow-up places p
// afresh, by load, and it would not reliably land there again.)
func (ra *realigner) trade(p int32) bool {
	st := ra.st
	o := ra.target[p]
	ro := st.memberRack[o]
	tp := st.topicOf[p]
	for _, r := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
		if ra.placedAt == nil {
			return false
		}
		key := r*ra.racks + ro
		end := ra.placedAt[key+1]
		for ra.placedHead[key] < end && !ra.tradable(ra.placed[ra.placedHead[key]], r) {
			ra.placedHead[key]++
		}
		for i := ra.placedHead[key]; i < end; i++ {
			if !ra.look() {
				return false
			}
			x := ra.placed[i]
			if !ra.tradable(x, r) {
				continue
			}
			v := ra.target[x]
			if (ra.count[v] != ra.count[o] && !ra.even) || !st.subscribes(v, tp) || !st.subscribes(o, st.topicOf[x]) {
				continue
			}
			ra.rehome(p, v)
			ra.rehome(x, o)
			return true
		}
	}
	return false
}

// tradable reports whether x is still placed this round on a member on
// rack r.
func (ra *realigner) tradable(x, r int32) bool {
	v := ra.target[x]
	return v >= 0 && v != ra.st.prev[x] && ra.st.memberRack[v] == r
}

// handOver gives p to the lowest-indexed member at count lo on one of its
// replica racks, when p's owner is at hi and the counts are even.
func (ra *realigner) handOver(p int32) bool {
	st := ra.st
	o := ra.target[p]
	if !ra.even || ra.hi == ra.lo {
		return false
	}
	v := ra.receiver(p)
	if v < 0 {
		return false
	}
	if ra.count[o] == ra.hi {
		ra.rehome(p, v)
		ra.count[o]--
		ra.count[v]++
		ra.queue(o)
		return true
	}
	// o is at lo: it takes in p's place a partition placed this round on
	// its rack from a member w at hi, so that the counts of w and v swap.
	ro := st.memberRack[o]
	if ra.placedAt == nil {
		return false
	}
	for h := range ra.racks {
		key := h*ra.racks + ro
		end := ra.placedAt[key+1]
		for ra.placedHead[key] < end && !ra.tradable(ra.placed[ra.placedHead[key]], h) {
			ra.placedHead[key]++
		}
		for i := ra.placedHead[key]; i < end; i++ {
			if !ra.look() {
				return false
			}
			x := ra.placed[i]
			w := ra.target[x]
			if !ra.tradable(x, h) || w == o || w == v || ra.count[w] != ra.hi || !st.subscribes(o, st.topicOf[x]) {
				continue
			}
			ra.rehome(p, v)
			ra.rehome(x, o)
			ra.count[w]--
			ra.count[v]++
			ra.queue(w)
			return true
		}
	}
	return false
}

// receiver is the lowest-indexed member at count lo on one of p's replica
// racks that subscribes to its topic, or -1.
func (ra *realigner) receiver(p int32) int32 {
	st := ra.st
	k := ra.cl.classOf[st.topicOf[p]]
	best := int32(-1)
	for _, r := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
		h := ra.receivers[classRack{k, r}]
		if h == nil {
			continue
		}
		if e, ok := h.top(ra.count); ok && (best < 0 || e.m < best) {
			best = e.m
		}
	}
	return best
}

// rehome gives p to member to. A partition its owner kept loses it for its
// rack (KIP-881); one placed this round keeps the reason it left its
// previous owner.
func (ra *realigner) rehome(p, to int32) {
	if ra.st.prev[p] == ra.target[p] {
		ra.st.setReason(p, ReasonRack)
	}
	ra.target[p] = to
}
