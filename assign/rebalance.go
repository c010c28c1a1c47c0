package assign

import "slices"

// rebalance moves partitions until no member holds a partition that another
// subscriber of its topic, with at least two fewer partitions, could take.
//
// Each move lowers the sum of squared partition counts by at least two, so
// the loop ends; moveLimit bounds it all the same, so that no input can make
// a rebalance spin (librdkafka #4783). Members are examined most-loaded
// first, and each move goes to the least-loaded subscriber of the class. The
// partition moved is, in order of preference, one that the receiver owned
// before, one its giver did not own before this round, then any: repairs
// undo this round's placements before they disturb what members already
// consume.
func rebalance(st *state, cl *topicClasses, target, count []int32) {
	r := newRebalancer(st, cl, target, count)
	moveLimit := 4*len(target) + 1024
	for moves := 0; moves < moveLimit; {
		if !r.enqueueViolations() {
			return
		}
		for moves < moveLimit {
			e, ok := r.work.top(count)
			if !ok {
				break
			}
			r.work.pop()
			if r.moveOne(e.m) {
				moves++
			}
		}
	}
}

type rebalancer struct {
	st     *state
	cl     *topicClasses
	target []int32
	count  []int32

	held      []int32   // partitions member m holds in its i-th class: held[classOff[m]+i]
	classOff  []int32   // per member, offset into held
	owned     [][]int32 // per member, partitions it was given (lazy: stale ones skipped)
	classMins []countHeap
	work      countHeap // members to examine, most loaded first
}

func newRebalancer(st *state, cl *topicClasses, target, count []int32) *rebalancer {
	n := len(st.members)
	r := &rebalancer{st: st, cl: cl, target: target, count: count, work: countHeap{max: true}}
	r.classOff = make([]int32, n+1)
	for m := range n {
		r.classOff[m+1] = r.classOff[m] + int32(len(cl.memberClasses[m]))
	}
	r.held = make([]int32, r.classOff[n])
	begin := make([]int32, n+1)
	for p, m := range target {
		if m >= 0 {
			begin[m+1]++
			r.held[r.slot(m, cl.classOf[st.topicOf[p]])]++
		}
	}
	for m := range n {
		begin[m+1] += begin[m]
	}
	flat := make([]int32, begin[n])
	fill := slices.Clone(begin[:n])
	for p, m := range target {
		if m >= 0 {
			flat[fill[m]] = int32(p)
			fill[m]++
		}
	}
	r.owned = make([][]int32, n)
	for m := range n {
		r.owned[m] = flat[begin[m]:begin[m+1]:begin[m+1]]
	}
	r.classMins = make([]countHeap, len(cl.subscribers))
	for k, subs := range cl.subscribers {
		h := &r.classMins[k]
		h.items = make([]countEntry, 0, len(subs))
		for _, m := range subs {
			h.push(countEntry{m, count[m]})
		}
	}
	return r
}

// slot returns the index in held of member m's class k.
func (r *rebalancer) slot(m, k int32) int32 {
	ks := r.cl.memberClasses[m]
	i, _ := slices.BinarySearch(ks, k)
	return r.classOff[m] + int32(i)
}

// worstClass returns the class in which m holds partitions whose least
// loaded subscriber has the fewest partitions, and that subscriber.
func (r *rebalancer) worstClass(m int32) (k int32, least countEntry, ok bool) {
	for i, c := range r.cl.memberClasses[m] {
		if r.held[r.classOff[m]+int32(i)] == 0 {
			continue
		}
		e, found := r.classMins[c].top(r.count)
		if found && (!ok || e.c < least.c) {
			k, least, ok = c, e, true
		}
	}
	return k, least, ok
}

// enqueueViolations queues every member that could give a partition away,
// and reports whether there was any.
func (r *rebalancer) enqueueViolations() bool {
	any := false
	for m := range int32(len(r.count)) {
		if _, least, ok := r.worstClass(m); ok && r.count[m]-least.c >= 2 {
			r.work.push(countEntry{m, r.count[m]})
			any = true
		}
	}
	return any
}

// moveOne moves one partition away from o if o is unbalanced; it reports
// whether it moved one.
func (r *rebalancer) moveOne(o int32) bool {
	k, least, ok := r.worstClass(o)
	if !ok || r.count[o]-least.c < 2 {
		return false
	}
	p, x := r.pick(o, k, least.m)
	if p < 0 {
		return false
	}
	r.target[p] = x
	r.count[o]--
	r.count[x]++
	r.held[r.slot(o, k)]--
	r.held[r.slot(x, k)]++
	r.owned[x] = append(r.owned[x], p)
	for _, m := range [2]int32{o, x} {
		for _, c := range r.cl.memberClasses[m] {
			r.classMins[c].push(countEntry{m, r.count[m]})
		}
		r.work.push(countEntry{m, r.count[m]})
	}
	return true
}

// pick chooses the partition of class k that o gives away and its receiver.
// The receiver is the least-loaded subscriber x unless racks apply, in which
// case a subscriber local to the partition with at least two fewer
// partitions than o is preferred.
func (r *rebalancer) pick(o, k, x int32) (p, to int32) {
	st := r.st
	best, bestRank := int32(-1), 5
	for _, q := range r.owned[o] {
		if r.target[q] != o || r.cl.classOf[st.topicOf[q]] != k {
			continue
		}
		rank := 3
		switch prev := st.prev[q]; {
		case prev == x:
			rank = 0
		case prev != o:
			rank = 1
		}
		if st.rackAware && !st.rackMatches(x, q) {
			rank++
		}
		if rank < bestRank {
			best, bestRank = q, rank
			if rank == 0 {
				break
			}
		}
	}
	if best < 0 {
		return -1, -1
	}
	to = x
	if st.rackAware && !st.rackMatches(x, best) {
		for _, m := range r.cl.subscribers[k] {
			if r.count[o]-r.count[m] >= 2 && st.rackMatches(m, best) && (to == x || r.count[m] < r.count[to]) {
				to = m
			}
		}
	}
	return best, to
}
