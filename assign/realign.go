package assign

// realignPasses bounds how often realign walks the partitions it has not
// realigned yet: a hand-over can make room for one an earlier walk could
// not place, so a walk that moved something is followed by another, but
// no input makes it walk the group more than this many times.
const realignPasses = 4

// realignWorkPerUnit is realign's work budget per partition, member and
// member-class subscription: every candidate a search looks at costs one.
// Candidates fail only when subscriptions differ, so a search usually
// takes the first; the budget keeps groups whose subscriptions differ
// from making the searches quadratic. A realignment it cuts short leaves
// partitions with their owners, for a later rebalance to bring home.
var realignWorkPerUnit = 32

// realign brings home partitions that an owner kept although none of
// their replicas is on its rack (KIP-881). The Java client's sticky
// assignors drop such a partition from what its owner keeps and deal it to
// a member on a matching rack that has room (AbstractStickyAssignor,
// kafka-java-assignors.md §3.4 step 1 and §3.5); realign does the same on
// the balanced plan, with moves that keep the plan balanced:
//
//   - exchange: the owner o and a member v on one of the partition's racks,
//     with the same partition count (or within one, when every subscriber
//     is), trade it for a partition v kept off its rack that o's rack
//     hosts, so both are brought home and no count changes;
//   - trade for a free partition: o takes a partition on one of its
//     replica racks that the plan gives to another member v this round
//     (nobody consumes it yet), or failing that one the plan gives v off
//     v's rack (off o's too then: still one partition more at home), and
//     v, on one of p's racks, takes p; only p is revoked, and no count
//     changes;
//   - hand-over: when every subscriber's count is within one of every
//     other's, an owner at the higher count hands the partition to a
//     member on a matching rack at the lower; the two counts swap, so the
//     plan stays as even as it was. An owner at the lower count hands it
//     over too if it can take in exchange a partition placed this round
//     on its rack from a member at the higher count: then that member's
//     count and the receiver's swap.
//
// The same moves also bring home partitions the plan places this round
// off their new member's rack; those go first, since moving them revokes
// nothing, and within each kind the partitions with the fewest
// subscribers on their racks go first, as the Java client deals them.
//
// A partition whose topic has no subscriber on a matching rack, or for
// which no such member has room, stays with its owner: realignment never
// unbalances a plan, and a group that is aligned already moves nothing.
// Members without a rack are never off their rack and never receive here.
// Under COOPERATIVE, the post-pass withholds each partition realign moved,
// since its owner still holds it: the owner revokes it this round and the
// follow-up gives it to its new member (KAFKA-15170 was the bug of
// handing it over at once). [WithKeepMisalignedRacks] turns this off.
//
// Cost: linear in the partitions and the members' subscriptions, times
// the replica racks per partition, at most realignPasses walks and a work
// budget (realignWorkPerUnit).
func realign(st *state, cl *topicClasses, target []memberIdx, count []int32) {
	if !st.rackAware || st.opts.keepMisaligned || st.stop.skip() {
		return
	}
	ra := realigner{st: st, cl: cl, target: target, count: count}
	// Partitions placed this round first: moving them revokes nothing.
	var off, kept []int32
	for p, m := range target {
		st.stop.at(p)
		if ra.misaligned(int32(p)) {
			if m == st.prev[p] {
				kept = append(kept, int32(p))
			} else {
				off = append(off, int32(p))
			}
		}
	}
	if len(off)+len(kept) == 0 {
		return
	}
	ra.index(off)
	// Within each kind, the partitions with the fewest subscribers on
	// their racks first (the Java client's numConsumersByPartition order):
	// they have the fewest places to go, and a receiver taken by a
	// partition that could have gone elsewhere would leave them off their
	// racks until a later rebalance.
	ra.byScarcity(off)
	ra.byScarcity(kept)
	off = append(off, kept...)
	ra.indexWants(off)
	ra.budget = realignWorkPerUnit * (len(target) + len(st.members) + ra.subscriptions + len(off))
	for pass := 0; pass < realignPasses && len(off) > 0; pass++ {
		moved := false
		w := 0
		for i, p := range off {
			if st.stop.skipAt(i) || ra.budget <= 0 {
				return
			}
			if !ra.misaligned(p) {
				continue // exchanged earlier in this walk
			}
			if ra.exchange(p) || ra.trade(p) || ra.handOver(p) {
				moved = true
				continue
			}
			off[w] = p
			w++
		}
		off = off[:w]
		if !moved {
			return
		}
	}
}

// realigner is realign's state; see realign.
type realigner struct {
	st     *state
	cl     *topicClasses
	target []memberIdx
	count  []int32
	// lo and hi are the lowest and highest counts among members that
	// subscribe to something; realign's moves never change them. even is
	// hi-lo <= 1: then any move that keeps the counts' multiset keeps the
	// plan balanced, and hand-overs are allowed.
	lo, hi int32
	even   bool
	// receivers[class, rack] holds the members on the rack that
	// subscribe to the class, pushed at count lo: the heap's top is the
	// lowest-indexed one still at lo (entries whose count has changed
	// since are stale and dropped).
	receivers map[classRack]*countHeap
	// onRack counts the subscribers of each class on each rack.
	onRack map[classRack]int32
	// placed[placedAt[h*racks+r]:placedAt[h*racks+r+1]] lists the
	// partitions with a replica on rack r that the plan gives to a member
	// on rack h other than their previous owner: the candidates for a
	// trade (entries whose target has changed since are stale, and
	// placedHead skips those at the front). Empty when racks² would be
	// out of proportion to the partitions; there are no trades then.
	placed, placedAt, placedHead []int32
	racks                        int32
	// wants[owner rack, replica rack] lists the partitions kept off their
	// owner's rack, on a rack their owner is on, that have a replica on
	// the other rack: the candidates for an exchange.
	wants map[rackPair]*partQueue
	// budget is the work left (see realignWorkPerUnit); work counts the
	// work done, for the stop polls.
	budget, work  int
	subscriptions int // member-class subscriptions
}

// look spends one unit of work on a candidate; it is false once the
// budget is spent.
func (ra *realigner) look() bool {
	ra.budget--
	ra.work++
	ra.st.stop.at(ra.work)
	return ra.budget > 0
}

type classRack struct {
	k classIdx
	r int32
}
type rackPair struct{ owner, replica int32 }

type partQueue struct {
	ps   []int32
	head int
}

// misaligned reports whether p's target is a member on a rack that hosts
// none of its replicas, while some replica rack exists.
func (ra *realigner) misaligned(p int32) bool {
	st := ra.st
	o := ra.target[p]
	if o < 0 || st.memberRack[o] < 0 || st.partRackIdx[p] == st.partRackIdx[p+1] {
		return false
	}
	return !st.rackMatches(o, p)
}
