package assign

import "slices"

// fillFromSoleGiver takes, in one pass, the steps of the owned phase that
// relieveOnce would take with one search over all members each, while a
// single member g can give: a scale-out where one member owned much and
// the rest are new (issue 10). order is relieveOnce's, the lowest level
// ends at j, most is g's count. It reports whether it moved anything; if
// not, the search runs as before.
//
// The steps are exactly the searches': with g the only member at least
// two above the lowest level L, g holding only partitions it owned, and
// no other member's partitions held elsewhere (no return edges but g's),
// every chain from g hands an owned partition on first, so costs at least
// 1, and a source that subscribes to a class g holds partitions of reaches
// g at 1 directly. The search processes its sources (the members at L, by
// index) before any other member, so the chain it takes runs from g to the
// first of them that subscribes to such a class, through the first such
// class in that member's list; the later members are reached the same way
// in the searches that follow, as each receiver rises to L+1. What apply
// then moves depends only on g, that receiver and the loads of the others,
// which are all L or L+1 (levelPair), so the step costs the receiver's
// classes and the partitions moved rather than a search over the group.
// The pass stops where the searches would differ: g below L+2, the level
// used up, a receiver raised by more than one.
func (r *rebalancer) fillFromSoleGiver(order []int32, j int, most int32) bool {
	n := len(order)
	if n < 2 {
		return false
	}
	g, level := order[n-1], r.count[order[0]]
	if r.count[g] != most || r.count[order[n-2]] > level+1 || r.awayAll != int(r.awayOf[g]) || r.holdsFree(g) {
		return false
	}
	others := levelPair{level: level, at: int32(j), above: int32(n - 1 - j)}
	r.others = &others
	defer func() { r.others = nil }()
	stepped := false
	for _, x := range order[:j] {
		if r.budget <= 0 || r.count[g] < level+2 {
			break
		}
		k, ok := r.firstHeldClass(g, x)
		if !ok {
			continue
		}
		r.viaMember[g], r.viaClass[g], r.viaMember[x] = x, k, -1
		r.apply(g)
		stepped = true
		if r.count[x] != level+1 {
			break
		}
		others.at--
		others.above++
	}
	return stepped
}

// firstHeldClass returns the first class in x's list of which g holds
// partitions.
func (r *rebalancer) firstHeldClass(g, x int32) (int32, bool) {
	ks := r.cl.memberClasses[x]
	r.budget -= len(ks)
	for _, k := range ks {
		if i, ok := slices.BinarySearch(r.cl.memberClasses[g], k); ok && r.held[r.classOff[g]+int32(i)] > 0 {
			return k, true
		}
	}
	return 0, false
}

// levelPair counts the subscribers other than fillFromSoleGiver's giver:
// at of them at level, above at level+1, none elsewhere.
type levelPair struct {
	level     int32
	at, above int32
}

// without returns the least and the largest load among them once one at
// load c is left out, as ownedUnits scans for (1<<30 and 0 when none is
// left).
func (l *levelPair) without(c int32) (lo, hi int32) {
	at, above := l.at, l.above
	if c == l.level {
		at--
	} else {
		above--
	}
	lo, hi = int32(1<<30), int32(0)
	if above > 0 {
		lo, hi = l.level+1, l.level+1
	}
	if at > 0 {
		lo, hi = l.level, max(hi, l.level)
	}
	return lo, hi
}
