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
// order. The search takes the most loaded giver, the first reached among
// equals (apply), then every other giver as loaded hands one partition to
// the first source still at L subscribing to its class (relieveAlike).
// The sources raised to L+1 drop out of the next search the same way. What
// apply moves depends on the giver, the receiver and the least and largest
// of the other loads, which fillState keeps without reading the group.
// The pass stops where the searches could differ: a giver reached only
// through other members, the level used up, no giver left, a receiver
// raised by more than one.
func (r *repairer) fillFromGivers(order []int32, j int) bool {
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
	for _, g := range order[first:] {
		if r.holdsFree(g) {
			return false
		}
		away += int(r.awayOf[g])
		f.givers = append(f.givers, fillGiver{m: g})
	}
	if away != r.awayAll {
		return false
	}
	f.cursor = make(map[int32]int)
	r.others = f
	defer func() { r.others = nil }()
	stepped := false
	for r.budget > 0 && f.at > 0 && !r.st.stop.spent(r.budget) {
		best := f.search()
		if best < 0 {
			break
		}
		g := f.givers[best]
		x, top := f.sources[g.src], r.count[g.m]
		r.viaMember[g.m], r.viaClass[g.m], r.viaMember[x] = x, g.k, -1
		r.apply(g.m)
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
	sources   []int32
	at, above int32
	givers    []fillGiver
	cursor    map[int32]int // per class, alike's first source that may still take one
}

// fillGiver is a giver and where the search reaches it: through
// sources[src] and class k.
type fillGiver struct {
	m   int32
	src int
	k   int32
}

// search returns the index in givers of the giver the search would take,
// or -1 where it might take a chain fillFromGivers does not follow. Givers
// that fell to level+1 leave the list.
func (f *fillState) search() int {
	r := f.r
	kept := f.givers[:0]
	for _, g := range f.givers {
		if r.count[g.m] >= f.level+2 {
			kept = append(kept, g)
		} else {
			f.above++
		}
	}
	f.givers = kept
	r.budget -= len(kept)
	best := -1
	for i := range f.givers {
		g := &f.givers[i]
		if !f.reach(g) {
			return -1
		}
		if best < 0 {
			best = i
			continue
		}
		b := &f.givers[best]
		switch cg, cb := r.count[g.m], r.count[b.m]; {
		case cg > cb:
			best = i
		case cg == cb && (g.src < b.src || g.src == b.src && (g.k < b.k || g.k == b.k && g.m < b.m)):
			best = i
		}
	}
	return best
}

// reach moves g.src and g.k to the first source still at level and the
// first class in its list of which g holds partitions. Both only move
// forward: sources leave the level, givers' holdings shrink. It is false
// too when a best-effort stop ends the repair (the step is not taken).
func (f *fillState) reach(g *fillGiver) bool {
	r := f.r
	for ; g.src < len(f.sources); g.src, g.k = g.src+1, 0 {
		if r.st.stop.spent(r.budget) {
			return false
		}
		x := f.sources[g.src]
		if r.count[x] != f.level {
			continue
		}
		r.budget--
		for _, k := range r.cl.memberClasses[x] {
			r.budget--
			if k < g.k {
				continue
			}
			if i, ok := slices.BinarySearch(r.cl.memberClasses[g.m], k); ok && r.held[r.classOff[g.m]+int32(i)] > 0 {
				g.k = k
				return true
			}
		}
	}
	return false
}

// raised records that x received; it reports whether x went past level+1.
func (f *fillState) raised(x int32) bool {
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
	for i, g := range f.givers {
		if r.count[g.m] == top {
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
		g := f.givers[i]
		if r.held[r.slot(g.m, g.k)] == 0 {
			continue
		}
		c := f.cursor[g.k]
		for c < len(f.sources) {
			x := f.sources[c]
			if _, ok := slices.BinarySearch(r.cl.memberClasses[x], g.k); ok && r.count[x] == f.level {
				break
			}
			r.budget--
			r.st.stop.spent(r.budget) // best effort: the scan ends, then the repair
			c++
		}
		f.cursor[g.k] = c
		if c == len(f.sources) {
			continue
		}
		x := f.sources[c]
		r.move(r.pick(g.m, g.k, x, 1)[0], g.m, x)
		r.count[g.m]--
		r.count[x]++
		f.raised(x)
	}
}

// without returns the least and the largest load of the subscribers other
// than o and x, as ownedUnits scans for (1<<30 and 0 when none is left).
func (f *fillState) without(o, x int32) (lo, hi int32) {
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
	for _, g := range f.givers {
		if g.m != o && g.m != x {
			c := f.r.count[g.m]
			lo, hi = min(lo, c), max(hi, c)
		}
	}
	return lo, hi
}
