package assign

import (
	"cmp"
	"iter"
	"slices"
)

// shedCounts makes members holding more than the count cap give up their
// lightest partitions, as long as another subscriber under the cap can
// take them: the count bound is what keeps a member that owns many idle
// partitions from being kept busy only by their number. It reports
// whether anything was shed.
func (lp *loadPlan) shedCounts() bool {
	st := lp.st
	shed := false
	for m := range int32(len(st.members)) {
		st.stop.at(int(m))
		if lp.count[m] <= lp.cap {
			continue
		}
		mine := slices.Clone(lp.sortedOf(m))
		slices.SortFunc(mine, func(a, b int32) int {
			if c := cmp.Compare(lp.w[a], lp.w[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		for _, p := range mine {
			if lp.count[m] <= lp.cap {
				break
			}
			k := int32(lp.cls.classOf[st.topicOf[p]])
			if r := lp.receiver(k, m); r < 0 || (st.prev[p] == memberIdx(m) && !lp.spend()) {
				continue
			}
			if st.prev[p] == memberIdx(m) {
				st.setReason(p, ReasonBalance) // over the count cap
			}
			lp.take(p, m)
			lp.pool = append(lp.pool, p)
			shed = true
		}
	}
	return shed
}

// place gives every partition of the pool, heaviest first, to the least
// loaded subscriber under the count cap, rack-local first (KIP-881):
// longest-processing-time-first, which is within 4/3 of the best largest
// load on its own and leaves the moves little to do.
func (lp *loadPlan) place() {
	st := lp.st
	// Sorted as (weight, partition) pairs: the comparisons then read
	// neighbouring memory, not the weight table at random.
	type item struct {
		w float64
		p int32
	}
	items := make([]item, len(lp.pool))
	for i, p := range lp.pool {
		items[i] = item{lp.w[p], p}
	}
	step := 0
	slices.SortFunc(items, func(a, b item) int {
		step = st.stop.over(step, 1)
		if a.w != b.w {
			return cmp.Compare(b.w, a.w)
		}
		return cmp.Compare(a.p, b.p)
	})
	for i, it := range items {
		lp.pool[i] = it.p
	}
	for i, p := range lp.pool {
		st.stop.at(i)
		k := int32(lp.cls.classOf[st.topicOf[p]])
		r := lp.receiver(k, -1)
		if r < 0 {
			lp.uncap(k)
			r = lp.receiver(k, -1)
		}
		r = lp.localFirst(k, p, r, -1)
		if o := st.prev[p]; o == memberIdx(r) && lp.budget >= 0 && st.keepable(o, p) {
			lp.budget++ // a partition shed for the count cap came back
		}
		lp.give(p, r) // a partition shed or unowned keeps the reason it entered the pool with
	}
	lp.pool = lp.pool[:0]
	// Back under the cap for shedding and moves, which must see the same
	// receivers in this round as in the next.
	clear(lp.uncapped)
}

// moves brings the most loaded member within the tolerance once it is
// past the hysteresis, and, with equal subscriptions, the least loaded one
// up to the floor once it is below the floor's hysteresis: the most loaded
// member gives, one partition at a time, to the least loaded subscriber
// of the partition's topic. Every move lowers the sum of squared loads
// (the receiver ends lighter than the donor was), so moves never cycle;
// they stop when both ends are within the tolerance, when no single move
// lowers the largest load, or when the move budget is spent. It reports
// whether anything moved.
func (lp *loadPlan) moves() (moved bool) {
	st := lp.st
	if !lp.tracking {
		lp.tracking = true
		for m := range int32(len(st.members)) {
			lp.donors.push(loadEntry{load: lp.load[m], c: lp.count[m], m: m})
		}
	}
	if !lp.outside(lp.trigger, lp.floorTrigger) {
		return false // hysteresis: nothing moves for load within it
	}
	limit := 2*st.numPartitions() + len(st.members) + 16
	for i := 0; i < limit; i++ {
		if st.stop.skipAt(i) || !lp.outside(lp.within, lp.floor) {
			return moved
		}
		h := lp.heaviest()
		p, r := lp.bestMove(h)
		if p < 0 && lp.load[h] <= lp.within {
			// Only the floor is missed, and the most loaded member
			// cannot help (its partitions are too heavy): the next
			// ones may.
			h, p, r = lp.pullMove(h)
		} else if p < 0 {
			// The most loaded member's every receiver is as loaded as
			// it: one of them makes room first.
			h, p, r = lp.roomMove(h)
		}
		if p < 0 {
			return moved // no single move lowers the largest load
		}
		if lp.isMove(p, r) && !lp.isMove(p, h) && !lp.spend() {
			return moved
		}
		if lp.isMove(p, h) && !lp.isMove(p, r) && lp.budget >= 0 {
			lp.budget++
		}
		if st.prev[p] == memberIdx(h) {
			st.setReason(p, ReasonLoad)
		}
		lp.take(p, h)
		lp.give(p, r)
		moved = true
	}
	return moved
}

// roomMove looks, when the most loaded member h has no single move
// (every subscriber that could take one of its partitions is about as
// loaded), for a move that makes room: such a subscriber gives one of its
// own partitions to a lighter member, so that h's lightest partition of
// that class then fits it. It returns the donor, the partition and the
// receiver, or p = -1. Like every move here it takes load from the
// heavier of two members to the lighter, so the plan cannot cycle.
func (lp *loadPlan) roomMove(h int32) (d, p, r int32) {
	for k, run := range lp.classRuns(h) {
		light := -1.0 // h's lightest partition of class k that weighs anything
		for _, q := range run {
			if lp.w[q] > 0 {
				light = lp.w[q]
				break
			}
		}
		c := lp.receiver(k, h)
		if light < 0 || c < 0 {
			continue
		}
		if q, t := lp.bestMove(c); q >= 0 && lp.load[c]-lp.w[q]+light < lp.load[h] {
			return c, q, t
		}
	}
	return -1, -1, -1
}

// outside reports whether the most loaded member is above ceiling or the
// least loaded one that can take partitions is below floor.
func (lp *loadPlan) outside(ceiling, floor float64) bool {
	h := lp.heaviest()
	if h < 0 {
		return false
	}
	if lp.load[h] > ceiling {
		return true
	}
	if floor <= 0 {
		return false
	}
	l := lp.receiver(0, -1)
	return l >= 0 && lp.load[l] < floor
}

// maxPullScan bounds how many donors pullMove tries per move.
const maxPullScan = 64

// pullMove looks for a move to an underloaded member among the most
// loaded members after skip, in order; it returns the donor, the
// partition and the receiver, or p = -1.
func (lp *loadPlan) pullMove(skip int32) (h, p, r int32) {
	var held []loadEntry
	h, p, r = -1, -1, -1
	for tried := 0; tried < maxPullScan && len(lp.donors.items) > 0; {
		e := lp.donors.items[0]
		lp.donors.pop()
		if !lp.live(e) {
			continue
		}
		held = append(held, e)
		if e.m == skip {
			continue
		}
		tried++
		if q, s := lp.bestMove(e.m); q >= 0 {
			h, p, r = e.m, q, s
			break
		}
	}
	for _, e := range held {
		lp.donors.push(e)
	}
	return h, p, r
}

// heaviest returns the most loaded member (ties: the lowest index).
func (lp *loadPlan) heaviest() int32 {
	h := &lp.donors
	for len(h.items) > 0 {
		if e := h.items[0]; lp.live(e) {
			return e.m
		}
		h.pop()
	}
	return -1
}

// bestMove picks, for donor h, the partition and receiver of the best
// single move: first one that brings h within the tolerance, the
// receiver up to the floor, and keeps the receiver within the tolerance
// (the lightest such partition), then one that
// keeps the receiver within it (the heaviest such partition), then the
// one that lowers the pair's larger load the most. Ties go to the lower
// resulting largest load, then the lower partition. It returns -1 when
// no move lowers h's load without making the receiver as loaded.
func (lp *loadPlan) bestMove(h int32) (p, r int32) {
	type cand struct {
		kind   int
		newMax float64
		p, r   int32
	}
	best := cand{kind: 3, p: -1, r: -1}
	consider := func(kind int, p, r int32) {
		w := lp.w[p]
		if w <= 0 || lp.load[r]+w >= lp.load[h] {
			return
		}
		c := cand{kind, max(lp.load[h]-w, lp.load[r]+w), p, r}
		if c.kind < best.kind || (c.kind == best.kind && (c.newMax < best.newMax || (c.newMax == best.newMax && c.p < best.p))) {
			best = c
		}
	}
	for k, run := range lp.classRuns(h) {
		r := lp.receiver(k, h)
		if r < 0 {
			continue
		}
		wh, wr := lp.load[h], lp.load[r]
		weightAt := func(i int) float64 { return lp.w[run[i]] }
		// The lightest partition that brings h within the tolerance and
		// the receiver up to the floor.
		need := max(wh-lp.within, lp.floor-wr, 0)
		i, _ := slices.BinarySearchFunc(run, need, func(p int32, x float64) int { return cmp.Compare(lp.w[p], x) })
		for i < len(run) && weightAt(i) == 0 {
			i++
		}
		if i < len(run) && wr+weightAt(i) <= lp.within {
			consider(0, run[i], lp.localFirst(k, run[i], r, h))
		}
		// The heaviest that keeps the receiver within it.
		j, _ := slices.BinarySearchFunc(run, lp.within-wr, func(p int32, x float64) int {
			if lp.w[p] <= x {
				return -1
			}
			return 1
		})
		if j > 0 {
			consider(1, run[j-1], lp.localFirst(k, run[j-1], r, h))
		}
		// The one closest to half the difference.
		half := (wh - wr) / 2
		c, _ := slices.BinarySearchFunc(run, half, func(p int32, x float64) int { return cmp.Compare(lp.w[p], x) })
		for _, x := range []int{c - 1, c} {
			if x >= 0 && x < len(run) {
				consider(2, run[x], lp.localFirst(k, run[x], r, h))
			}
		}
	}
	return best.p, best.r
}

// classRuns yields member m's partitions (sortedOf) class by class: each
// class k of them with the run of its partitions, lightest first.
func (lp *loadPlan) classRuns(m int32) iter.Seq2[int32, []int32] {
	s := lp.sortedOf(m)
	classOf := func(p int32) int32 { return int32(lp.cls.classOf[lp.st.topicOf[p]]) }
	return func(yield func(int32, []int32) bool) {
		for lo := 0; lo < len(s); {
			k, hi := classOf(s[lo]), lo+1
			for hi < len(s) && classOf(s[hi]) == k {
				hi++
			}
			if !yield(k, s[lo:hi]) {
				return
			}
			lo = hi
		}
	}
}

// sortedOf returns member m's partitions sorted by (class, weight,
// partition), rebuilding the list when m received partitions since.
func (lp *loadPlan) sortedOf(m int32) []int32 {
	if lp.sorted[m] != nil && !lp.dirty[m] {
		return lp.sorted[m]
	}
	live := lp.parts[m][:0]
	for _, p := range lp.parts[m] {
		if lp.target[p] == memberIdx(m) {
			live = append(live, p)
		}
	}
	s := slices.Clone(live)
	step := 0
	slices.SortFunc(s, func(a, b int32) int {
		step = lp.st.stop.over(step, 1)
		return lp.order(a, b)
	})
	// A partition that left m and came back is listed twice.
	s = slices.Compact(s)
	lp.parts[m] = append(live[:0], s...)
	lp.sorted[m], lp.dirty[m] = s, false
	return s
}
