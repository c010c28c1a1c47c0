package assign

// rackTally counts, per holding slot and rack, what pickRank needs to know
// about rack locality without reading a holding list: how many of the
// slot's partitions have a replica on the rack (held), how many of those
// the holder did not own before (free), and, per away pair, how many of
// the partitions v owned and u holds have a replica on v's rack (home);
// and the same again of only the partitions with a replica on the
// holder's own rack (the own* counts). So a rack-aware pick knows how many
// partitions of each rank it has, as one without racks does, and reads its
// list only until it has taken them.
type rackTally struct {
	racks                int32
	held, free           []int32 // [slot*racks+rack]
	ownHeld, ownFree     []int32 // [slot*racks+rack], on the holder's rack too
	slotOwn, slotOwnFree []int32 // [slot], on the holder's rack
	home                 map[awayKey]int32
	homeOwn              map[awayKey]int32 // on u's rack
	homeBoth             map[awayKey]int32 // on v's rack and u's
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
	n := slots * int(racks)
	t := &rackTally{racks: racks, held: make([]int32, n), free: make([]int32, n),
		ownHeld: make([]int32, n), ownFree: make([]int32, n),
		slotOwn: make([]int32, slots), slotOwnFree: make([]int32, slots),
		home: make(map[awayKey]int32), homeOwn: make(map[awayKey]int32), homeBoth: make(map[awayKey]int32)}
	for p, m := range r.target {
		st.stop.at(p)
		if m >= 0 {
			k := r.cl.classOf[st.topicOf[p]]
			t.add(r, partIdx(p), r.slot(m, k), m, 1)
			if o := st.prev[p]; o >= 0 && o != m {
				t.addHome(r, partIdx(p), o, m, k, 1)
			}
		}
	}
	return t
}

// add counts p, held by u in slot s, delta times on each of its racks.
func (t *rackTally) add(r *repairer, p partIdx, s slotIdx, u memberIdx, delta int32) {
	st := r.st
	free := st.prev[p] != u
	own := st.rackMatches(u, int32(p))
	if own {
		t.slotOwn[s] += delta
		if free {
			t.slotOwnFree[s] += delta
		}
	}
	for _, rk := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
		i := int32(s)*t.racks + rk
		t.held[i] += delta
		if free {
			t.free[i] += delta
		}
		if own {
			t.ownHeld[i] += delta
			if free {
				t.ownFree[i] += delta
			}
		}
	}
}

// addHome counts p, which v owned and u holds in class k, delta times in
// each home count whose racks it has a replica on.
func (t *rackTally) addHome(r *repairer, p partIdx, v, u memberIdx, k classIdx, delta int32) {
	key := awayKey{v, u, k}
	onV, onU := r.st.rackMatches(v, int32(p)), r.st.rackMatches(u, int32(p))
	if onV {
		addCount(t.home, key, delta)
	}
	if onU {
		addCount(t.homeOwn, key, delta)
	}
	if onV && onU {
		addCount(t.homeBoth, key, delta)
	}
}

// addCount adds delta to m[key], dropping keys that reach zero.
func addCount(m map[awayKey]int32, key awayKey, delta int32) {
	if n := m[key] + delta; n == 0 {
		delete(m, key)
	} else {
		m[key] = n
	}
}

// move keeps the tally as move hands p from u (slot su) to v (slot sv).
func (t *rackTally) move(r *repairer, p partIdx, u, v memberIdx, k classIdx, su, sv slotIdx) {
	t.add(r, p, su, u, -1)
	t.add(r, p, sv, v, 1)
	if o := r.st.prev[p]; o >= 0 {
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
	key := awayKey{v, u, k}
	home, free, held := int(r.away[key]), int(r.free[s]), int(r.held[s])
	// Per preference (home, free, owned): all, on v's rack, on u's, on both.
	all := [3]int{home, free - home, held - free}
	own := [3]int{int(t.homeOwn[key]), int(t.slotOwnFree[s]) - int(t.homeOwn[key]), int(t.slotOwn[s] - t.slotOwnFree[s])}
	onV, both := all, own // a member without a rack matches every partition
	if rk := r.st.memberRack[v]; rk >= 0 {
		i := int32(s)*t.racks + rk
		onV = [3]int{int(t.home[key]), int(t.free[i]) - int(t.home[key]), int(t.held[i] - t.free[i])}
		both = [3]int{int(t.homeBoth[key]), int(t.ownFree[i]) - int(t.homeBoth[key]), int(t.ownHeld[i] - t.ownFree[i])}
	}
	for c := range all {
		counts[4*c] = onV[c] - both[c]                     // on v's rack, off u's
		counts[4*c+1] = all[c] - onV[c] - own[c] + both[c] // on neither
		counts[4*c+2] = both[c]                            // on both
		counts[4*c+3] = own[c] - both[c]                   // on u's, off v's
	}
	return counts
}
