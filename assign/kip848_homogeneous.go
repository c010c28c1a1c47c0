package assign

// uniformHomogeneous is the broker's uniform assignor for a group whose
// members all subscribe to the same topics (KIP-848; Kafka's
// UniformHomogeneousAssignmentBuilder). Balance comes before stickiness:
//
//  1. The quota is over the total partition count P, not per topic: with n
//     members each may hold P/n, and P%n of them one more. In member
//     order, a member takes an extra slot while extras are left, but gives
//     it up when it owned too few to fill it and enough members remain to
//     take the extras. Per-topic skew is possible: a member may hold all
//     of one topic.
//  2. Each member keeps what it owned, in (topic, partition) order, up to
//     its quota; the rest of what it owned is revoked.
//  3. The partitions nobody owned, in (topic, partition) order, then the
//     revoked ones, member by member, go in that order to the members
//     under their quota, member by member, each filled before the next.
//
// The broker iterates members, topics and partitions in its maps' hash
// order; here members go by member id, topics by name and partitions
// ascending (docs/kip848.md).
func (st *state) uniformHomogeneous(target []memberIdx) {
	n := len(st.members)
	total := st.numPartitions()
	if total == 0 {
		return
	}
	// owned[i] counts what member i owned (every member subscribes to
	// every topic here, so all of it counts).
	owned := st.ints.take(n)
	for p, o := range st.prev {
		st.stop.at(p)
		if o >= 0 {
			owned[o]++
		}
	}
	// keep[i] is how many of those member i keeps, left[i] how many more
	// it takes.
	keep, left := st.ints.take(n), st.ints.take(n)
	minQuota, extras := int32(total/n), total%n
	for i := range left {
		st.stop.at(i)
		quota, extra := minQuota, extras > 0
		if extra {
			quota++
		}
		keep[i] = min(owned[i], quota)
		left[i] = quota - keep[i]
		// A member that cannot fill its extra slot from what it owns gives
		// the slot up while enough members remain to take the extras
		// left: those that own more keep it, and fewer partitions move
		// (Kafka 4.1; before, the first P%n members took the extras
		// whatever they owned).
		if left[i] > 0 && extra && n-i > extras {
			left[i]--
			extra = false
		}
		if extra {
			extras--
		}
	}
	// Keep: ascending p is each member's (topic, partition) order.
	revoked := st.ints.take(n) // per member: how many it gives up
	free := 0                  // partitions nobody owned
	for p, o := range st.prev {
		st.stop.at(p)
		switch {
		case o < 0:
			free++
		case keep[o] > 0:
			target[p] = o
			keep[o]--
		default:
			revoked[o]++
		}
	}
	// The queue of partitions to place: the unowned ones first, then the
	// revoked ones grouped by member in member order (a counting sort:
	// revoked[i] becomes member i's offset in the queue).
	queue := st.ints.take(free + sumInt32(revoked))
	off := int32(free)
	for i, c := range revoked {
		st.stop.at(i)
		revoked[i] = off
		off += c
	}
	k := 0
	for p, o := range st.prev {
		st.stop.at(p)
		switch {
		case o < 0:
			queue[k] = int32(p)
			k++
		case target[p] < 0:
			queue[revoked[o]] = int32(p)
			revoked[o]++
		}
	}
	// Fill the members under quota in member order.
	k = 0
	for i, l := range left {
		st.stop.at(i)
		for ; l > 0 && k < len(queue); l-- {
			st.stop.at(k)
			target[queue[k]] = memberIdx(i)
			k++
		}
	}
}

func sumInt32(xs []int32) int {
	s := 0
	for _, x := range xs {
		s += int(x)
	}
	return s
}
