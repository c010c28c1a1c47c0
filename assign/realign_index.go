package assign

import (
	"cmp"
	"slices"
)

// The indexes realign searches; see realigner.

// index builds the counts' bounds, the receivers and the wants lists.
func (ra *realigner) index(off []int32) {
	st, cl := ra.st, ra.cl
	first := true
	for m, ks := range cl.memberClasses {
		ra.subscriptions += len(ks)
		if len(ks) == 0 {
			continue
		}
		if c := ra.count[m]; first {
			ra.lo, ra.hi, first = c, c, false
		} else {
			ra.lo, ra.hi = min(ra.lo, c), max(ra.hi, c)
		}
	}
	ra.even = ra.hi-ra.lo <= 1
	ra.onRack = make(map[classRack]int32)
	for m, ks := range cl.memberClasses {
		if r := st.memberRack[m]; r >= 0 {
			for _, k := range ks {
				ra.onRack[classRack{k, r}]++
			}
		}
	}
	ra.receivers = make(map[classRack]*countHeap)
	if ra.even && ra.hi > ra.lo {
		step := 0
		for m, ks := range cl.memberClasses {
			step = st.stop.over(step, len(ks))
			if ra.count[m] == ra.lo {
				ra.queue(memberIdx(m))
			}
		}
	}
	ra.indexPlaced()

}

// indexPlaced builds placed, by counting sort on (holder rack, replica
// rack): flat, since a scale-out places nearly every partition.
func (ra *realigner) indexPlaced() {
	st := ra.st
	ra.racks = int32(len(st.rackNames))
	// One row per holder rack, and a last one for holders without a rack;
	// one column per replica rack, and a last one for partitions without
	// replica racks (never off any member's rack).
	keys := int(ra.racks+1) * int(ra.racks+1)
	if keys > 4*len(ra.target)+1024 {
		return
	}
	ra.placedAt = make([]int32, keys+1)
	each := func(visit func(key int32, p int32)) {
		for p, m := range ra.target {
			st.stop.at(p)
			if m < 0 || m == st.prev[p] {
				continue
			}
			h := ra.holderRow(m)
			racks := st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]]
			if len(racks) == 0 {
				visit(ra.key(h, ra.racks), int32(p))
			}
			for _, r := range racks {
				visit(ra.key(h, r), int32(p))
			}
		}
	}
	each(func(key, _ int32) { ra.placedAt[key+1]++ })
	for k := range keys {
		ra.placedAt[k+1] += ra.placedAt[k]
	}
	ra.placed = make([]int32, ra.placedAt[keys])
	ra.placedHead = make([]int32, keys)
	copy(ra.placedHead, ra.placedAt[:keys])
	each(func(key, p int32) {
		ra.placed[ra.placedHead[key]] = p
		ra.placedHead[key]++
	})
	copy(ra.placedHead, ra.placedAt[:keys])
}

// indexWants builds wants from the partitions off their racks.
func (ra *realigner) indexWants(off []int32) {
	st := ra.st
	ra.wants = make(map[rackPair]*partQueue)
	for i, p := range off {
		st.stop.at(i)
		ro := st.memberRack[ra.target[p]]
		for _, r := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
			key := rackPair{ro, r}
			q := ra.wants[key]
			if q == nil {
				q = &partQueue{}
				ra.wants[key] = q
			}
			q.ps = append(q.ps, p)
		}
	}
}

// byScarcity sorts ps, stably, by how many subscribers of each one's
// topic are on its replica racks, fewest first.
func (ra *realigner) byScarcity(ps []int32) {
	st := ra.st
	type keyed struct{ n, p int32 }
	ks := make([]keyed, len(ps))
	for i, p := range ps {
		st.stop.at(i)
		k := ra.cl.classOf[st.topicOf[p]]
		n := int32(0)
		for _, r := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
			n += ra.onRack[classRack{k, r}]
		}
		ks[i] = keyed{n, p}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return cmp.Compare(a.n, b.n) })
	for i, k := range ks {
		ps[i] = k.p
	}
}

// queue makes member m, now at count lo, a receiver of hand-overs.
func (ra *realigner) queue(m memberIdx) {
	r := ra.st.memberRack[m]
	if r < 0 {
		return
	}
	for _, k := range ra.cl.memberClasses[m] {
		key := classRack{k, r}
		h := ra.receivers[key]
		if h == nil {
			h = &countHeap{}
			ra.receivers[key] = h
		}
		h.push(countEntry{m, ra.count[m]})
	}
}

// holderRow is the row of placed for partitions held by m: its rack, or
// racks for a member without one.
func (ra *realigner) holderRow(m memberIdx) int32 {
	if r := ra.st.memberRack[m]; r >= 0 {
		return r
	}
	return ra.racks
}

// key is the index in placedAt of holder row h and replica column c.
func (ra *realigner) key(h, c int32) int32 { return h*(ra.racks+1) + c }
