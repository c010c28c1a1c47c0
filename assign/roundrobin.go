package assign

import "slices"

// roundRobinAssignor is Kafka's RoundRobinAssignor. See registry.go RoundRobin.
//
// All partitions, in (topic, partition) order, are dealt to the members in
// MemberInfo order (static members by instance id first, KIP-345), skipping
// members that do not subscribe to the partition's topic. The skip moves the
// shared pointer, so unequal subscriptions can end up unbalanced. With
// c0 on t0, t1 and c1 on t1 only, t0 and t1 of 2 partitions each:
//
//	c0: t0-0 t0-1 t1-1
//	c1: t1-0
//
// Roundrobin ignores history: owned partitions only matter for the
// revocation bookkeeping in Run.
type roundRobinAssignor struct {
	eagerProtocols
	ownedHistory
}

func (roundRobinAssignor) Name() string { return NameRoundRobin }
func (roundRobinAssignor) Version() int { return 1 }

// plan deals partitions topic by topic. Within a topic the pointer visits
// only the topic's subscribers, so instead of walking every member per
// partition it finds the first subscriber at or after the pointer once per
// topic (a binary search over the subscribers' ranks) and then steps
// through the subscribers circularly.
func (roundRobinAssignor) plan(st *state, target []memberIdx) {
	ord := memberInfoOrder(st.members, &st.stop)
	cons := subscriberRanks(st, ord)
	next := int32(0) // rank the circular pointer rests on
	for t := range st.topics {
		subs := cons[t]
		k, _ := slices.BinarySearch(subs, next)
		if k == len(subs) {
			k = 0
		}
		st.stop.at(t)
		for p := st.start[t]; p < st.start[t+1]; p++ {
			st.stop.at(int(p))
			target[p] = memberIdx(ord[subs[k]])
			next = subs[k] + 1
			if k++; k == len(subs) {
				k = 0
			}
		}
		if next == int32(len(ord)) {
			next = 0
		}
	}
	st.layoutReasons(target)
}
