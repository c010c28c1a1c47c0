package assign

import "slices"

type repairer struct {
	st     *state
	cl     *topicClasses
	target []memberIdx
	count  []int32

	// held[classOff[m]+i] counts the partitions member m holds in its i-th
	// class (cl.memberClasses[m][i]); free the subset it did not own before
	// this round.
	held, free []int32
	classOff   []slotIdx
	// subSlot[k][i] is the slot of cl.subscribers[k][i] in class k: the
	// searches walk every subscriber of a class and would otherwise look
	// each slot up again (half of their time).
	subSlot [][]slotIdx
	// holding[classOff[m]+i] lists the partitions member m was given in
	// its i-th class, in order (stale entries are skipped): a pick reads
	// only the class it hands on.
	holding [][]partIdx
	// unclean[s] counts the entries of holding[s] that a rack-aware pick's
	// full read would drop (partitions moved away other than by a pick,
	// and their duplicates once they come back); pickedSlot is the slot of
	// the last pick, whose chosen partitions are already out of its list.
	unclean    []int32
	pickedSlot slotIdx
	racks      *rackTally // nil without racks, or with too many
	// away counts, per member v, holder u and class k, the partitions of
	// k that v owned before this round and u holds now; awayFrom[v] lists
	// the (u, k) pairs that may have some (pairs whose count fell to zero
	// are dropped when the list is next read). Counting per pair rather
	// than listing partitions keeps a search's cost independent of how
	// many partitions have moved.
	away     map[awayKey]int32
	awayFrom [][]awayEdge
	// awayOf[v] sums away over v's pairs; awayAll over all: fillFromGivers
	// needs to know that only its givers' partitions are held elsewhere.
	awayOf  []int32
	awayAll int
	budget  int
	// others, while fillFromGivers runs, knows the loads (see ownedUnits);
	// nil otherwise.
	others *fillState
	// The mean count of the members that subscribe to something, rounded
	// down and up, and whether they all subscribe to the same classes (see
	// ownedUnits).
	meanFloor, meanCeil int32
	uniform             bool

	searchScratch               // the searches' working space and the chain they found
	pickScratch                 // pick's working space
	alike         [][]memberIdx // relieveAlike's receivers by class, reused
}

func newRepairer(st *state, cl *topicClasses, target []memberIdx, count []int32) *repairer {
	n := len(st.members)
	r := &repairer{st: st, cl: cl, target: target, count: count}
	r.classOff = make([]slotIdx, n+1)
	for m := range n {
		r.classOff[m+1] = r.classOff[m] + slotIdx(len(cl.memberClasses[m]))
	}
	r.held = make([]int32, r.classOff[n])
	r.subSlot = make([][]slotIdx, len(cl.subscribers))
	flatSlots := make([]slotIdx, 0, r.classOff[n])
	for k, subs := range cl.subscribers {
		start := len(flatSlots)
		for _, m := range subs {
			flatSlots = append(flatSlots, r.slot(memberIdx(m), classIdx(k)))
		}
		r.subSlot[k] = flatSlots[start:len(flatSlots):len(flatSlots)]
	}
	r.free = make([]int32, r.classOff[n])
	slots := int(r.classOff[n])
	begin := make([]int32, slots+1)
	for p, m := range target {
		st.stop.at(p)
		if m >= 0 {
			i := r.slot(m, cl.classOf[st.topicOf[p]])
			begin[i+1]++
			r.held[i]++
			if st.prev[p] != m {
				r.free[i]++
			}
		}
	}
	for i := range slots {
		begin[i+1] += begin[i]
	}
	flat := make([]partIdx, begin[slots])
	fill := slices.Clone(begin[:slots])
	for p, m := range target {
		st.stop.at(p)
		if m >= 0 {
			i := r.slot(m, cl.classOf[st.topicOf[p]])
			flat[fill[i]] = partIdx(p)
			fill[i]++
		}
	}
	r.holding = make([][]partIdx, slots)
	r.unclean = make([]int32, slots)
	r.pickedSlot = -1
	r.racks = r.newRackTally()
	for i := range slots {
		r.holding[i] = flat[begin[i]:begin[i+1]:begin[i+1]]
	}
	var total, subscribers int
	var first []classIdx
	r.uniform = true
	for m := range n {
		if ks := cl.memberClasses[m]; len(ks) > 0 {
			total += int(count[m])
			subscribers++
			if first == nil {
				first = ks
			} else if !slices.Equal(first, ks) {
				r.uniform = false
			}
		}
	}
	if subscribers > 0 {
		r.meanFloor = int32(total / subscribers)
		r.meanCeil = int32((total + subscribers - 1) / subscribers)
	}
	r.away = make(map[awayKey]int32)
	r.awayFrom = make([][]awayEdge, n)
	r.awayOf = make([]int32, n)
	for p, m := range target {
		st.stop.at(p)
		if o := st.prev[p]; o >= 0 && m >= 0 && m != o {
			r.addAway(o, m, cl.classOf[st.topicOf[p]], 1)
		}
	}
	r.budget = max(repairWorkPerUnit*(len(target)+n+int(r.classOff[n])), minRepairBudget)
	r.dist = make([]int32, n)
	r.distStamp = make([]int32, n)
	r.viaMember = make([]memberIdx, n)
	r.viaClass = make([]classIdx, n)
	r.classDist = make([]int32, len(cl.subscribers))
	r.classStamp = make([]int32, len(cl.subscribers))
	return r
}

// repairWorkPerUnit is the repair's work budget per unit of input (a
// partition, a member, a member's subscription to a class of topics), so
// that no input holds the engine for longer than its size warrants: at
// some 6 ns a step, about 0.4 s per million units. Groups that need many
// steps per unit are small enough for minRepairBudget to decide (what real
// groups use: docs/engine.md). A variable so that tests can make a repair
// run out.
var repairWorkPerUnit = 64

// minRepairBudget is the least work budget of a repair. It lets small
// groups over many topics finish in one round: a rebalance costs the whole
// group far more than the ~0.2 s that 2^25 steps take. A variable so that
// tests can make a repair run out.
var minRepairBudget = 1 << 25

// awayKey is a member v, a member u and a class k: see repairer.away.
type awayKey struct {
	v, u memberIdx
	k    classIdx
}

// awayEdge is a holder u of partitions of class k another member owned.
type awayEdge struct {
	u memberIdx
	k classIdx
}

// addAway adds delta to the partitions of class k owned by v and held by u.
func (r *repairer) addAway(v, u memberIdx, k classIdx, delta int32) {
	key := awayKey{v, u, k}
	n := r.away[key]
	r.awayOf[v] += delta
	r.awayAll += int(delta)
	switch {
	case n+delta == 0:
		delete(r.away, key)
	case n == 0:
		r.away[key] = delta
		r.awayFrom[v] = append(r.awayFrom[v], awayEdge{u, k})
	default:
		r.away[key] = n + delta
	}
}

// slotIdx numbers the slots: one per member and class the member
// subscribes to, member by member (member m's are classOff[m] to
// classOff[m+1]-1, its classes in ascending order). held, free, holding
// and unclean are indexed by slot; its own type keeps a slot from being
// passed where a member, class or partition is meant.
type slotIdx int32

// slot returns the index in held and free of member m's class k.
func (r *repairer) slot(m memberIdx, k classIdx) slotIdx {
	i, _ := slices.BinarySearch(r.cl.memberClasses[m], k)
	return r.classOff[m] + slotIdx(i)
}
