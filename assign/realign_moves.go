package assign

// The moves realign makes; each keeps the plan balanced (see realign).

// exchange trades p with a partition that a member on one of p's replica
// racks kept off its own rack and that p's owner's rack hosts.
//
// exchange and trade swap one partition each way, so no count changes;
// the two members must have the same count only when the partitions are
// of different topics (then each takes a topic the other held, and a
// subscriber of it two below could make the plan unbalanced) and the
// counts are not even. Partitions of one topic swap at any counts: the
// topic's subscribers see the same counts as before.
func (ra *realigner) exchange(p int32) bool {
	st := ra.st
	ro := st.memberRack[ra.target[p]]
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
			if x := q.ps[i]; ra.misaligned(x) && ra.swap(p, x) {
				return true
			}
		}
	}
	return false
}

// swap gives p to x's owner and x to p's, when the counts and the
// subscriptions allow (see exchange), and reports whether it did.
func (ra *realigner) swap(p, x int32) bool {
	st := ra.st
	o, v := ra.target[p], ra.target[x]
	tp, tx := st.topicOf[p], st.topicOf[x]
	if (ra.count[v] != ra.count[o] && !ra.even && tx != tp) || !st.subscribes(v, tp) || !st.subscribes(o, tx) {
		return false
	}
	ra.rehome(p, v)
	ra.rehome(x, o)
	return true
}

// trade gives p's owner o, for p, a partition on its rack (or with no
// replica rack) that the plan hands to another member v this round, when
// v's rack hosts a replica of p or, when some subscriber of p's topic is
// on one of p's racks, v has no rack. A member without a rack is never
// off its rack, so the trade takes p off o's rack all the same; in the
// follow-up placeByRack gives p to a member on its rack with room, else
// to one without a rack with room, so p does not land off its rack
// again. Members without a rack qualify because the repair can hand one
// an on-rack partition of an owner that keeps an off-rack one: with rack
// holders only, no trade would bring that one home.
func (ra *realigner) trade(p int32) bool {
	if ra.placedAt == nil {
		return false
	}
	k := ra.cl.classOf[ra.st.topicOf[p]]
	homes := false // some subscriber of p's topic is on one of its racks
	for _, r := range ra.st.partRacks[ra.st.partRackIdx[p]:ra.st.partRackIdx[p+1]] {
		if done, ok := ra.tradeWith(p, r); done || !ok {
			return done
		}
		homes = homes || ra.onRack[classRack{k, r}] > 0
	}
	if !homes {
		return false // no member could bring it home: its owner keeps it
	}
	done, _ := ra.tradeWith(p, ra.racks)
	return done
}

// tradeWith tries trade with the partitions placed this round on holders
// in row h of placed (a rack, or ra.racks for members without one); ok is
// false once the work budget is spent.
//
// Last, it takes a partition placed this round off its holder's rack, on
// neither rack then: p comes home and the other stays off a rack, one
// partition more on its rack all the same, and only p is revoked. Without
// it, a partition that only a member full of partitions placed off its
// rack could bring home stayed where it was (issue 27, item 5: Kafka's
// testRackAwareAssignmentWithNonEqualSubscription, 5 partitions off their
// racks where the cheapest plan leaves 4).
func (ra *realigner) tradeWith(p, h int32) (done, ok bool) {
	ro := ra.st.memberRack[ra.target[p]]
	if done, ok = ra.tradeAt(p, h, ro, false); done || !ok {
		return done, ok
	}
	if done, ok = ra.tradeAt(p, h, ra.racks, false); done || !ok || h == ra.racks {
		return done, ok // a member without a rack holds nothing off its rack
	}
	for c := range ra.racks {
		if c == h || c == ro {
			continue
		}
		if done, ok = ra.tradeAt(p, h, c, true); done || !ok {
			return done, ok
		}
	}
	return false, true
}

// tradeAt tries trade with the partitions in row h, column c of placed:
// those with a replica on p's owner's rack, or those with no replica rack
// (c == ra.racks), which are off nobody's rack either; with offHolder,
// those of column c that are off their holder's rack.
func (ra *realigner) tradeAt(p, h, c int32, offHolder bool) (done, ok bool) {
	for _, x := range ra.placedIn(h, c) {
		if !ra.look() {
			return false, false
		}
		if ra.tradable(x, h) && (!offHolder || ra.misaligned(x)) && ra.swap(p, x) {
			return true, true
		}
	}
	return false, true
}

// placedIn returns the candidates of row h, column c of placed, from the
// first one still tradable: the stale ones before it are skipped for good
// (placedHead).
func (ra *realigner) placedIn(h, c int32) []int32 {
	key := ra.key(h, c)
	end := ra.placedAt[key+1]
	for ra.placedHead[key] < end && !ra.tradable(ra.placed[ra.placedHead[key]], h) {
		ra.placedHead[key]++
	}
	return ra.placed[ra.placedHead[key]:end]
}

// tradable reports whether x is still placed this round on a member in
// row h of placed.
func (ra *realigner) tradable(x, h int32) bool {
	v := ra.target[x]
	return v >= 0 && v != ra.st.prev[x] && ra.holderRow(v) == h
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
		for _, x := range ra.placedIn(h, ro) {
			if !ra.look() {
				return false
			}
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
func (ra *realigner) receiver(p int32) memberIdx {
	st := ra.st
	k := ra.cl.classOf[st.topicOf[p]]
	best := memberIdx(-1)
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
func (ra *realigner) rehome(p int32, to memberIdx) {
	if ra.st.prev[p] == ra.target[p] {
		ra.st.setReason(p, ReasonRack)
	}
	ra.target[p] = to
}
