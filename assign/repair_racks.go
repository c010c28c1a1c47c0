package assign

// rackTally counts, per holding slot and rack, what pickRank needs to know
// about rack locality without reading a holding list: how many of the
// slot's partitions have a replica on the rack (held), how many of those
// the holder did not own before (free), and, per away pair, how many of
// the partitions v owned and u holds have a replica on v's rack (home). So
// a rack-aware pick knows how many partitions of each rank it has, as one
// without racks does, and reads its list only until it has taken them.
type rackTally struct {
	racks      int32
	held, free []int32 // [slot*racks+rack]
	home       map[awayKey]int32
}

// maxRackTally bounds rackTally's table (slots × racks) in proportion to
// the partitions; past it, picks read until their choice is settled.
func maxRackTally(partitions int) int { return 2*partitions + 1024 }

// useRackTally is false only in tests of the picks without one.
var useRackTally = true

// newRackTally returns the tally of a rack-aware group, or nil when it
// would be too large.
func (r *repairer) newRackTally() *rackTally {
	st := r.st
	racks := int32(len(st.rackNames))
	slots := len(r.held)
	if !useRackTally || !st.rackAware || racks == 0 || slots*int(racks) > maxRackTally(len(r.target)) {
		return nil
	}
	t := &rackTally{racks: racks, held: make([]int32, slots*int(racks)), free: make([]int32, slots*int(racks)),
		home: make(map[awayKey]int32)}
	for p, m := range r.target {
		st.stop.at(p)
		if m >= 0 {
			m, k := memberIdx(m), classIdx(r.cl.classOf[st.topicOf[p]])
			t.add(r, partIdx(p), r.slot(m, k), m, 1)
			if o := memberIdx(st.prev[p]); o >= 0 && o != m {
				t.addHome(r, partIdx(p), o, m, k, 1)
			}
		}
	}
	return t
}

// add counts p, held by u in slot s, delta times on each of its racks.
func (t *rackTally) add(r *repairer, p partIdx, s slotIdx, u memberIdx, delta int32) {
	st := r.st
	free := memberIdx(st.prev[p]) != u
	for _, rk := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
		i := int32(s)*t.racks + rk
		t.held[i] += delta
		if free {
			t.free[i] += delta
		}
	}
}

// addHome counts p, which v owned and u holds in class k, delta times if
// it has a replica on v's rack.
func (t *rackTally) addHome(r *repairer, p partIdx, v, u memberIdx, k classIdx, delta int32) {
	if !r.st.rackMatches(int32(v), int32(p)) {
		return
	}
	key := awayKey{v, u, k}
	if n := t.home[key] + delta; n == 0 {
		delete(t.home, key)
	} else {
		t.home[key] = n
	}
}

// move keeps the tally as move hands p from u (slot su) to v (slot sv).
func (t *rackTally) move(r *repairer, p partIdx, u, v memberIdx, k classIdx, su, sv slotIdx) {
	t.add(r, p, su, u, -1)
	t.add(r, p, sv, v, 1)
	if o := memberIdx(r.st.prev[p]); o >= 0 {
		if o != u {
			t.addHome(r, p, o, u, k, -1)
		}
		if o != v {
			t.addHome(r, p, o, v, k, 1)
		}
	}
}

// rankCounts counts u's partitions of class k (slot s) by pickRank for v.
func (t *rackTally) rankCounts(r *repairer, u memberIdx, k classIdx, v memberIdx, s slotIdx) (counts [pickRanks]int) {
	home := int(r.away[awayKey{v, u, k}])
	free, held := int(r.free[s]), int(r.held[s])
	rk := r.st.memberRack[v]
	if rk < 0 { // a member without a rack matches every partition
		counts[0], counts[2], counts[4] = home, free-home, held-free
		return counts
	}
	homeLocal := int(t.home[awayKey{v, u, k}])
	freeLocal := int(t.free[int32(s)*t.racks+rk])
	heldLocal := int(t.held[int32(s)*t.racks+rk])
	counts[0], counts[1] = homeLocal, home-homeLocal
	counts[2], counts[3] = freeLocal-homeLocal, free-home-(freeLocal-homeLocal)
	counts[4], counts[5] = heldLocal-freeLocal, held-free-(heldLocal-freeLocal)
	return counts
}
