package assign

import "slices"

// maxFillGivers bounds the givers fillFromGivers follows: each of its steps
// reads them all. Scale-outs from up to a few hundred members fit; a group
// where more give (a hundred newcomers joining a thousand) takes searches,
// each of which moves a partition from every giver as loaded as the best.
const maxFillGivers = 256

// fillFromGivers takes, in one pass, the steps of the owned phase that
// relieveOnce and augment would take with one search over all members
// each, while few members can give: a scale-out where a few members owned
// much and the rest are new (issue 10). order is relieveOnce's, the lowest
// level L ends at j. It reports whether it moved anything; if not, the
// searches run.
//
// The steps are exactly the searches'. The givers (members at L+2 or more)
// hold only partitions they owned, and nobody else's partitions are held
// elsewhere, so the only chains of negative cost start at a giver, and
// every chain from a giver costs at least 1. The search processes its
// sources (the members at L, by index) before any other member, each one's
// classes in order, each class's subscribers by index; so when every giver
// holds partitions of a class some source subscribes to, each is reached
// at 1 directly, through the first such source and class, and in that
// order. The search takes the most loaded giver, among equals the one with
// the best first pick (handRank), then the first reached (apply), then every other giver as loaded hands one partition to
// the first source still at L subscribing to its class (relieveAlike).
// The sources raised to L+1 drop out of the next search the same way. What
// apply moves depends on the giver, the receiver and the least and largest
// of the other loads, which fillState keeps without reading the group.
// The pass stops where the searches could differ: a giver reached only
// through other members, the level used up, no giver left, a receiver
// raised by more than one, a giver in a rack-aware group that would hand
// over a partition on its own rack while it holds one off it (the search
// then looks for a neighbour on that one's rack: firstHop).
func (r *repairer) fillFromGivers(order []memberIdx, j int) bool {
	n := len(order)
	level := r.count[order[0]]
	first := n // order[first:] are the givers; order[j:first] are at L+1
	for first > j && r.count[order[first-1]] >= level+2 {
		if n-first == maxFillGivers {
			return false // too many: stop counting them
		}
		first--
	}
	if first == n {
		return false
	}
	f := &fillState{r: r, level: level, sources: order[:j], at: int32(j), above: int32(first - j)}
	away := 0
	for _, gv := range order[first:] {
		if r.holdsFree(gv) {
			return false
		}
		away += int(r.awayOf[gv])
		f.givers = append(f.givers, fillGiver{m: gv})
	}
	if away != r.awayAll {
		return false
	}
	f.cursor = make(map[classIdx]int)
	r.others = f
	defer func() { r.others = nil }()
	stepped := false
	for r.budget > 0 && f.at > 0 && !r.st.stop.spent(r.budget) {
		best := f.search()
		if best < 0 {
			break
		}
		gv := f.givers[best]
		x, top := f.sources[gv.src], r.count[gv.m]
		if r.st.rackAware && r.mayHandThrough(gv.m, gv.k, x) {
			break // the search may hand through another member (firstHop)
		}
		r.viaMember[gv.m], r.viaClass[gv.m], r.viaMember[x] = x, gv.k, -1
		r.apply(gv.m)
		stepped = true
		far := f.raised(x)
		if !r.uniform {
			f.alike(top)
		}
		if far {
			break
		}
	}
	return stepped
}

// fillState is fillFromGivers' view of the loads: the sources still at
// level (at of them), above at level+1, and the givers, at level+2 or
// more; there is no other load.
type fillState struct {
	r         *repairer
	level     int32
	sources   []memberIdx
	at, above int32
	givers    []fillGiver
	cursor    map[classIdx]int // per class, alike's first source that may still take one
}

// fillGiver is a giver and where the search reaches it: through
// sources[src] and class k.
type fillGiver struct {
	m   memberIdx
	src int
	k   classIdx
}

// search returns the index in givers of the giver the search would take,
// or -1 where it might take a chain fillFromGivers does not follow. Givers
// that fell to level+1 leave the list.
func (f *fillState) search() int {
	r := f.r
	kept := f.givers[:0]
	for _, gv := range f.givers {
		if r.count[gv.m] >= f.level+2 {
			kept = append(kept, gv)
		} else {
			f.above++
		}
	}
	f.givers = kept
	r.budget -= len(kept)
	best, bestRank := -1, -1 // bestRank: handRankTo of best, -1 until needed
	for i := range f.givers {
		gv := &f.givers[i]
		if !f.reach(gv) {
			return -1
		}
		if best < 0 {
			best, bestRank = i, -1
			continue
		}
		b := &f.givers[best]
		switch cg, cb := r.count[gv.m], r.count[b.m]; {
		case cg > cb:
			best, bestRank = i, -1
		case cg == cb:
			if bestRank < 0 {
				bestRank = r.handRankTo(b.m, b.k, f.sources[b.src])
			}
			rank := r.handRankTo(gv.m, gv.k, f.sources[gv.src])
			if rank < bestRank || rank == bestRank && (gv.src < b.src || gv.src == b.src && (gv.k < b.k || gv.k == b.k && gv.m < b.m)) {
				best, bestRank = i, rank
			}
		}
	}
	return best
}

// reach moves gv.src and gv.k to the first source still at level and the
// first class in its list of which gv holds partitions. Both only move
// forward: sources leave the level, givers' holdings shrink. It is false
// too when a best-effort stop ends the repair (the step is not taken).
func (f *fillState) reach(gv *fillGiver) bool {
	r := f.r
	for ; gv.src < len(f.sources); gv.src, gv.k = gv.src+1, 0 {
		if r.st.stop.spent(r.budget) {
			return false
		}
		x := f.sources[gv.src]
		if r.count[x] != f.level {
			continue
		}
		r.budget--
		for _, k := range r.cl.memberClasses[x] {
			r.budget--
			if k < gv.k {
				continue
			}
			if i, ok := slices.BinarySearch(r.cl.memberClasses[gv.m], k); ok && r.held[r.classOff[gv.m]+slotIdx(i)] > 0 {
				gv.k = k
				return true
			}
		}
	}
	return false
}

// raised records that x received; it reports whether x went past level+1.
func (f *fillState) raised(x memberIdx) bool {
	if f.r.count[x] != f.level+1 {
		return true
	}
	f.at--
	f.above++
	return false
}

// alike is relieveAlike for the givers of this step: every giver still at
// top, by member index, hands one partition of its class to the first
// source still at level that subscribes to the class.
func (f *fillState) alike(top int32) {
	r := f.r
	var same []int32
	for i, gv := range f.givers {
		if r.count[gv.m] == top {
			same = append(same, int32(i))
		}
	}
	if len(same) == 0 {
		return
	}
	slices.SortFunc(same, func(a, b int32) int { return int(f.givers[a].m - f.givers[b].m) })
	for _, i := range same {
		if r.st.stop.spent(r.budget) {
			return // each hand-over is whole: the plan stays valid
		}
		r.budget--
		gv := f.givers[i]
		if r.held[r.slot(gv.m, gv.k)] == 0 {
			continue
		}
		c := f.cursor[gv.k]
		for c < len(f.sources) {
			x := f.sources[c]
			if _, ok := slices.BinarySearch(r.cl.memberClasses[x], gv.k); ok && r.count[x] == f.level {
				break
			}
			r.budget--
			r.st.stop.spent(r.budget) // best effort: the scan ends, then the repair
			c++
		}
		f.cursor[gv.k] = c
		if c == len(f.sources) {
			continue
		}
		x := f.sources[c]
		r.move(r.pick(gv.m, gv.k, x, 1)[0], gv.m, x)
		r.count[gv.m]--
		r.count[x]++
		f.raised(x)
	}
}

// without returns the least and the largest load of the subscribers other
// than o and x, as ownedUnits scans for (1<<30 and 0 when none is left).
func (f *fillState) without(o, x memberIdx) (lo, hi int32) {
	at, above := f.at, f.above
	if f.r.count[x] == f.level {
		at--
	} else {
		above--
	}
	lo, hi = int32(1<<30), int32(0)
	if above > 0 {
		lo, hi = f.level+1, f.level+1
	}
	if at > 0 {
		lo, hi = f.level, max(hi, f.level)
	}
	f.r.budget -= len(f.givers)
	for _, gv := range f.givers {
		if gv.m != o && gv.m != x {
			c := f.r.count[gv.m]
			lo, hi = min(lo, c), max(hi, c)
		}
	}
	return lo, hi
}
