package assign

import (
	"cmp"
	"slices"
)

// loadPlan is the state of one load-aware plan (see [LoadSticky]). Where
// a partition's owner is decided: keep (its owner keeps it), shedCounts
// (an owner over the count cap gives it up), place (a subscriber takes a
// partition nobody holds) and move (the most loaded member gives it to a
// lighter one).
type loadPlan struct {
	st     *state
	w      []float64
	target []memberIdx
	cls    *topicClasses

	load  []float64 // per member
	count []int32   // per member

	// receivers[k] holds the subscribers of class k, least loaded first;
	// members at the count cap are dropped from it (and pushed back when
	// their count changes). A class whose subscribers are all at the cap
	// becomes uncapped while the pool is placed: its subscribers take what
	// only they can take.
	receivers []loadHeap
	uncapped  []bool
	// rackReceivers holds, per (class, rack), the class's subscribers in
	// that rack, built on first use for KIP-881 placement.
	rackReceivers map[[2]int32]*loadHeap
	// donors holds every member, most loaded first, once moves begin
	// (tracking is on): placement alone never needs it.
	donors   loadHeap
	tracking bool

	// parts[m] lists what member m holds, with entries of partitions it
	// gave away left in (target tells); sorted[m] is parts[m] live and
	// sorted by (class, weight, partition), rebuilt when m becomes a donor
	// after it received something.
	parts  [][]int32
	sorted [][]int32
	dirty  []bool

	cap                    int32   // count cap per member
	bound, within, trigger float64 // lower bound; bound×(1+tolerance); ×(1+tolerance+hysteresis)
	// With equal subscriptions a member below the mean×(1−tolerance) is
	// underloaded (a member that just joined holds nothing): past
	// floorTrigger, mean×(1−tolerance−hysteresis), it pulls load until
	// it reaches floor. -1 when subscriptions differ (a member that only
	// subscribes to idle topics is rightly idle).
	floor, floorTrigger float64
	budget              int     // moves left this round; <0: no cap
	pool                []int32 // partitions to place
}

// planLoad fills target with a load-balanced plan that keeps partitions
// with their owners unless the load calls for a move.
func planLoad(st *state, target []memberIdx) {
	lp := newLoadPlan(st, target)
	lp.keep()
	lp.place()
	// Partitions placed early can take a member over the count cap once
	// the partitions only it can take follow, a member's shed partitions
	// can take another over it, and a load move can make room under the
	// cap. Shedding and moving until neither finds anything to do leaves
	// nothing for the next round either, so a steady group stays put;
	// the passes are bounded in case the cap and the load pull apart.
	for pass := 0; pass < maxShedPasses; pass++ {
		shed := lp.shedCounts()
		if shed {
			lp.place()
		}
		if !lp.moves() && !shed {
			break
		}
	}
}

// maxShedPasses bounds planLoad's rounds of shedding for the count cap.
const maxShedPasses = 8

func newLoadPlan(st *state, target []memberIdx) *loadPlan {
	nm := len(st.members)
	lp := &loadPlan{st: st, w: st.weight, target: target, cls: newTopicClasses(st),
		load: make([]float64, nm), count: make([]int32, nm),
		parts: make([][]int32, nm), sorted: make([][]int32, nm), dirty: make([]bool, nm),
		donors: loadHeap{most: true}, budget: -1}
	lp.receivers = make([]loadHeap, len(lp.cls.subscribers))
	lp.uncapped = make([]bool, len(lp.cls.subscribers))
	o := st.opts.load
	total, bound := st.loadBound(lp.cls)
	lp.bound = bound
	lp.within = bound * (1 + o.tolerance)
	lp.trigger = bound * (1 + o.tolerance + o.hysteresis)
	lp.floor, lp.floorTrigger = -1, -1
	if st.equalSubs && len(lp.cls.subscribers) == 1 {
		mean := total / float64(nm)
		lp.floor = mean * (1 - o.tolerance)
		lp.floorTrigger = mean * (1 - o.tolerance - o.hysteresis)
	}
	share := int32((st.numPartitions() + nm - 1) / nm)
	skew := int32(min(o.countSkew, 1<<30)) // no member holds more than all partitions anyway
	if skew <= 0 {
		skew = share
	}
	lp.cap = share + skew
	if st.opts.maxMoves > 0 && !st.opts.freeze {
		lp.budget = st.opts.maxMoves
	}
	return lp
}

// keep leaves every partition with its previous owner while that owner
// still subscribes to the topic; the rest go to the pool.
func (lp *loadPlan) keep() {
	st := lp.st
	for p, o := range st.prev {
		st.stop.at(p)
		if o >= 0 && st.keepable(o, int32(p)) {
			lp.target[p] = o
			lp.load[o] += lp.w[p]
			lp.count[o]++
			lp.parts[o] = append(lp.parts[o], int32(p))
			continue
		}
		lp.pool = append(lp.pool, int32(p))
	}
	for m := range int32(len(st.members)) {
		lp.changed(m)
	}
}

// changed pushes member m's current load and count into every heap that
// holds it.
func (lp *loadPlan) changed(m int32) {
	e := loadEntry{load: lp.load[m], c: lp.count[m], m: m}
	if lp.tracking {
		lp.donors.push(e)
	}
	for _, k := range lp.cls.memberClasses[m] {
		lp.receivers[k].push(e)
		if lp.rackReceivers != nil && lp.st.rackAware && lp.st.memberRack[m] >= 0 {
			if h := lp.rackReceivers[[2]int32{int32(k), lp.st.memberRack[m]}]; h != nil {
				h.push(e)
			}
		}
	}
}

// live reports whether e is m's current entry.
func (lp *loadPlan) live(e loadEntry) bool {
	return e.load == lp.load[e.m] && e.c == lp.count[e.m]
}

// receiver returns the least loaded subscriber of class k other than
// exclude that is under the count cap (any subscriber once k is
// uncapped), or -1.
func (lp *loadPlan) receiver(k, exclude int32) int32 {
	return lp.top(&lp.receivers[k], lp.uncapped[k], exclude)
}

func (lp *loadPlan) top(h *loadHeap, uncapped bool, exclude int32) int32 {
	var held []loadEntry
	found := int32(-1)
	for len(h.items) > 0 {
		e := h.items[0]
		switch {
		case !lp.live(e):
			h.pop()
		case !uncapped && e.c >= lp.cap:
			h.pop() // pushed again when its count changes
		case e.m == exclude:
			held = append(held, e)
			h.pop()
		default:
			found = e.m
		}
		if found >= 0 {
			break
		}
	}
	for _, e := range held {
		h.push(e)
	}
	return found
}

// uncap makes class k's subscribers take partitions beyond the count cap:
// they are the only ones that can.
func (lp *loadPlan) uncap(k int32) {
	lp.uncapped[k] = true
	h := &lp.receivers[k]
	h.items = h.items[:0]
	for _, m := range lp.cls.subscribers[k] {
		h.push(loadEntry{load: lp.load[m], c: lp.count[m], m: m})
	}
}

// rackReceiver returns the least loaded subscriber of class k in one of
// p's replica racks (under the cap unless k is uncapped), or -1.
func (lp *loadPlan) rackReceiver(k, p, exclude int32) int32 {
	st := lp.st
	best := int32(-1)
	for _, r := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
		key := [2]int32{k, r}
		h := lp.rackReceivers[key]
		if h == nil {
			if lp.rackReceivers == nil {
				lp.rackReceivers = make(map[[2]int32]*loadHeap)
			}
			h = &loadHeap{}
			for _, m := range lp.cls.subscribers[k] {
				if st.memberRack[m] == r {
					h.push(loadEntry{load: lp.load[m], c: lp.count[m], m: m})
				}
			}
			lp.rackReceivers[key] = h
		}
		if m := lp.top(h, lp.uncapped[k], exclude); m >= 0 && (best < 0 || lp.lighter(m, best)) {
			best = m
		}
	}
	return best
}

func (lp *loadPlan) lighter(a, b int32) bool {
	if lp.load[a] != lp.load[b] {
		return lp.load[a] < lp.load[b]
	}
	if lp.count[a] != lp.count[b] {
		return lp.count[a] < lp.count[b]
	}
	return a < b
}

// localFirst returns a rack-local alternative to r for partition p when
// r is not local and the alternative stays within the tolerance or is no
// heavier than r (KIP-881), else r.
func (lp *loadPlan) localFirst(k, p, r, exclude int32) int32 {
	st := lp.st
	if !st.rackAware || st.rackMatches(memberIdx(r), p) {
		return r
	}
	c := lp.rackReceiver(k, p, exclude)
	if c < 0 || (lp.load[c]+lp.w[p] > lp.within && lp.load[c] > lp.load[r]) {
		return r
	}
	return c
}

// give hands partition p (held by nobody) to member m.
func (lp *loadPlan) give(p, m int32) {
	lp.target[p] = memberIdx(m)
	lp.load[m] += lp.w[p]
	lp.count[m]++
	lp.parts[m] = append(lp.parts[m], p)
	lp.dirty[m] = true
	lp.changed(m)
}

// take removes partition p from its holder h.
func (lp *loadPlan) take(p, h int32) {
	lp.target[p] = -1
	lp.load[h] -= lp.w[p]
	lp.count[h]--
	if s := lp.sorted[h]; s != nil && !lp.dirty[h] {
		if i, ok := slices.BinarySearchFunc(s, p, lp.order); ok {
			lp.sorted[h] = slices.Delete(s, i, i+1)
		}
	}
	lp.changed(h)
}

// order sorts a member's partitions by (class, weight, partition).
func (lp *loadPlan) order(a, b int32) int {
	st := lp.st
	if c := cmp.Compare(lp.cls.classOf[st.topicOf[a]], lp.cls.classOf[st.topicOf[b]]); c != 0 {
		return c
	}
	if c := cmp.Compare(lp.w[a], lp.w[b]); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// isMove reports whether p held by m counts against the move budget: it
// left a live previous owner that could have kept it.
func (lp *loadPlan) isMove(p, m int32) bool {
	o := lp.st.prev[p]
	return o >= 0 && o != memberIdx(m) && lp.st.keepable(o, p)
}

// spend takes one move from the budget; false when none is left.
func (lp *loadPlan) spend() bool {
	if lp.budget < 0 {
		return true
	}
	if lp.budget == 0 {
		return false
	}
	lp.budget--
	return true
}
