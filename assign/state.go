package assign

// state is the dense, validated form of a Group that the assignors work on.
// Members, topics and partitions are small integers so that the hot paths
// index flat slices instead of maps of strings:
//
//   - member i is members[i]; members are sorted by member id;
//   - topic t is topics[t]; only topics present in metadata with at least one
//     partition and subscribed by at least one member; sorted by name;
//   - global partition p of topic t is start[t] + partition number, so
//     ascending p is (topic name, partition) order.
type state struct {
	group    *Group
	protocol RebalanceProtocol
	opts     options

	members []*Member // sorted by ID

	topics []*Topic // sorted by name
	// meta maps a topic name to its index in group.Topics, and denseOf
	// that index to the dense topic id (-1: not subscribed, or no
	// partitions). One map serves validation, numbering and lookups.
	meta    map[string]int32
	denseOf []int32
	start   []int32 // len(topics)+1; start[len(topics)] is the partition total
	topicOf []int32 // global partition -> topic

	// subs[i] lists, ascending, the topics member i subscribes to that exist.
	// Members with equal subscriptions share one backing slice.
	subs [][]int32
	// subscribers[t] lists, ascending, the members subscribing to topic t.
	subscribers [][]int32
	// equalSubs is true when every member subscribes to the same set of
	// existing topics.
	equalSubs bool

	// prev[p] is the member that owned p before this round by the assignor's
	// memberData rule after claim resolution, or -1. A partition claimed by
	// two members in the same (highest) generation has prev -1 and
	// contested[p] set (KAFKA-12984).
	prev      []memberIdx
	contested []bool // nil when nothing is contested
	// reasons[p] is why p leaves its previous owner (or, ReasonHeld, why
	// it stays), written where that is decided (setReason); it is only
	// read where p's target is not its previous owner, or for ReasonHeld.
	// nil until a reason is recorded.
	reasons []MoveReason
	// staleLoser[p] is the member whose claim on p lost to a higher
	// generation (-1: several, contested before; noStaleClaim: none); nil
	// when no claim is stale.
	staleLoser []memberIdx
	// held counts the partitions freeze and capMoves kept (ReasonHeld).
	held int
	// claims[i] lists, ascending and without duplicates, the existing
	// partitions member i reported in memberData, stale claims included.
	claims [][]int32
	// owned[i] lists, ascending and without duplicates, the existing
	// partitions of subscribed topics that member i reports owning
	// (Member.Owned): the lists of claims, except for an assignor whose
	// history is its user data (sticky). It only feeds Revoked.
	owned [][]int32
	// unsubscribedOwned[i] lists what member i reports owning of existing
	// topics that no member subscribes to any more; it only feeds Revoked.
	unsubscribedOwned map[memberIdx][]TopicPartitions
	// gen[i] is member i's generation from memberData (NoGeneration if none).
	gen []int32

	// Racks (KIP-881), only set when rack-aware assignment applies.
	rackAware   bool
	rackNames   []string
	memberRack  []int32 // per member: rack id, or -1
	partRackIdx []int32 // len P+1 when rackAware: racks of p are partRacks[partRackIdx[p]:partRackIdx[p+1]]
	partRacks   []int32 // rack ids, ascending per partition

	warnings []string
	// workLimitCut is set when the balance repair stopped at its work
	// limit: the plan is valid, and Run finishes it as one cut short
	// (cutShort), as it does a plan whose refinements a stop skipped.
	workLimitCut bool

	// weight[p] is the load of global partition p (setWeights), nil when
	// the group gives no weights.
	weight []float64

	stop stopper // the run's context, polled by every loop that grows with the input

	ints int32Arena // backing store of the int32 slices of one Run
}

// numPartitions is the number of partitions of subscribed, existing topics.
func (st *state) numPartitions() int { return int(st.start[len(st.topics)]) }

// subscribes reports whether member m subscribes to topic t.
func (st *state) subscribes(m memberIdx, t int32) bool {
	s := st.subs[m]
	lo, hi := 0, len(s)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if s[h] < t {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo < len(s) && s[lo] == t
}

// rackMatches reports whether member m may consume p without crossing racks:
// true when rack-aware assignment is off, m has no rack, or a replica of p
// lives in m's rack.
func (st *state) rackMatches(m memberIdx, p int32) bool {
	if !st.rackAware {
		return true
	}
	r := st.memberRack[m]
	if r < 0 {
		return true
	}
	for _, x := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
		if x == r {
			return true
		}
	}
	return false
}
