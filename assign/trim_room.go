package assign

// trimRoom spreads what the over-quota members give up across topics
// (planEqual, both trimmers). What they give up is dealt to the members
// below their quota, so it is what those members receive: when one member
// joins a balanced group in which every member owns partition i of each
// topic, the Java client's rule (keep the lowest partition numbers, topics
// in name order at each number) makes every trimmed member give up its
// partition of the last topic, and the newcomer ends with 50 partitions of
// one topic and none of the others. A newcomer loaded with one topic is a
// hot spot.
//
// room[t] is how many more partitions of topic t the trimmers may free
// before the free ones exceed what the receiving members need of t: the
// sum of their even shares of t, a receiver with quota q taking q ×
// partitions of t / all partitions, each share rounded up (and the extra
// slots' share, rounded up), less what they already keep of t, less what
// is free already (unowned partitions, those of members that left). Each
// share is rounded up on its own, not their sum once plus one per
// receiver: with two newcomers that need 4 partitions each of 49, 24 of
// them on one topic, the trimmers may free 2 + 2 + 1 of it, not 7, and
// the round robin that deals the free partitions then gives neither
// newcomer all four of that topic.
// A trimmer gives up partitions in its own order (the Java client's, or
// cooperative-sticky@2's per-topic order), skipping a topic without room
// while another it holds has room; when none has, it gives up in its own
// order again. The count each member gives up is its excess over its
// quota, so no more partitions move than without room; and where the
// trimmers' own order already spreads (every small group in which each
// gives up one partition of a topic nobody else gives up), room changes
// nothing.
type trimRoom struct {
	room []int32
}

// newTrimRoom computes the room per topic; keepable and quota are per
// member, slots the extra partitions left to members at minQ (those not
// taken by members over it).
func newTrimRoom(st *state, keepable, quota []int32, slots int32) *trimRoom {
	nt := len(st.topics)
	total := int64(st.numPartitions())
	held := st.ints.take(nt) // partitions of t the receivers keep
	kept := st.ints.take(nt) // partitions of t anybody keeps (free: the rest)
	// The receivers by quota: a quota is minQ or minQ+1 (planEqual's rule
	// 1), so two counts give every receiver's share.
	var atMin, aboveMin int64
	minQ := int32(total / int64(len(st.members)))
	step := 0
	for i, c := range st.claims {
		m := memberIdx(i)
		recv := keepable[m] < quota[m]
		if recv {
			if quota[m] == minQ {
				atMin++
			} else {
				aboveMin++
			}
		}
		for _, p := range c {
			st.stop.at(step)
			step++
			if st.prev[p] != m {
				continue
			}
			t := st.topicOf[p]
			kept[t]++
			if recv {
				held[t]++
			}
		}
	}
	tr := &trimRoom{room: kept} // reused: kept[t] is read before room[t] is written
	for t := range nt {
		parts := int64(st.topics[t].Partitions)
		allow := atMin*ceilDiv(int64(minQ)*parts, total) +
			aboveMin*ceilDiv(int64(minQ+1)*parts, total) +
			ceilDiv(int64(slots)*parts, total)
		free := parts - int64(kept[t])
		tr.room[t] = int32(max(0, allow-int64(held[t])-free))
	}
	return tr
}

// freed records that n partitions of topic t were given up.
func (tr *trimRoom) freed(t, n int32) { tr.room[t] = max(0, tr.room[t]-n) }

// ceilDiv is a / b rounded up, for a ≥ 0 and b > 0.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
