package assign

// rangeAssignor is Kafka's RangeAssignor. See registry.go Range.
//
// Per topic, the subscribers in MemberInfo order (static members by instance
// id first, KIP-345) take contiguous ranges: with n partitions and m
// subscribers each takes n/m, and the first n%m take one more. With 2
// subscribers c0, c1 and topics t0, t1 of 3 partitions:
//
//	c0: t0-0 t0-1 t1-0 t1-1
//	c1: t0-2 t1-2
//
// Topics with the same subscribers and partition count are co-partitioned:
// partition p of each goes to the same member, which is why users pick
// range. KIP-881 rack awareness (range_rack.go) keeps the per-topic counts
// and the co-partitioning and only changes which member takes which
// partition.
//
// Range ignores history: owned partitions only matter for the revocation
// bookkeeping in Run.
type rangeAssignor struct {
	eagerProtocols
	ownedHistory
}

func (rangeAssignor) Name() string { return NameRange }
func (rangeAssignor) Version() int { return 1 }

func (rangeAssignor) plan(st *state, target []memberIdx) {
	ord := memberInfoOrder(st.members, &st.stop)
	cons := subscriberRanks(st, ord)
	// The group-wide gate in st.rackAware is false whenever every per-topic
	// gate of range is: the per-topic member and replica racks are subsets
	// of the group's, and a partition that has every rack of the group has
	// every rack of its topic. So it is a safe pre-filter.
	if !st.rackAware || !planRangeRacks(st, ord, cons, target) {
		for t := range st.topics {
			st.stop.at(t)
			rangeSplit(target[st.start[t]:st.start[t+1]], cons[t], ord, &st.stop)
		}
	}
	st.layoutReasons(target)
}

// rangeSplit gives the partitions of one topic (part, indexed by partition
// number) to its consumers (ranks into ord, in order) in contiguous ranges.
func rangeSplit(part []memberIdx, cons []int32, ord []int32, stop *stopper) {
	n, m := len(part), len(cons)
	if m == 0 {
		return
	}
	q, extra := n/m, n%m
	p := 0
	for k, r := range cons {
		take := q
		if k < extra {
			take++
		}
		if take == 0 {
			break
		}
		for end := p + take; p < end; p++ {
			stop.at(p)
			part[p] = memberIdx(ord[r])
		}
	}
}
