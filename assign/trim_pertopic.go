package assign

// topicTrimmer chooses which owned partitions a member keeps when it owns
// more than its quota (cooperative-sticky@2). It gives up partitions of the
// topic in which its share is furthest above an even share
// (count × members − topic partitions), one at a time, so that what it
// keeps spreads across topics like a fresh round robin would. Ties go to
// the topic that follows the member's index (modulo the topic count), so
// that members trimming at once give up different topics and whoever takes
// the partitions receives a spread of topics too. Before both, it gives up
// partitions of a topic with room (trimRoom), so that what all trimmers
// give up together stays within the receivers' share of each topic.
// Within a topic it keeps the lowest partition numbers.
type topicTrimmer struct {
	runs     runHeap
	keepable []int32
}

type topicRun struct {
	topic      int32
	from, kept int32 // the member's keepable partitions of the topic: keepable[from : from+kept]
	over       int64 // kept × members − partitions of the topic
	tie        int32 // rotation of the topic relative to the member
	room       int32 // partitions of the topic it may still give up within the trim's room (trimRoom)
	given      int32
}

// rank orders a run for giving up its next partition: one with room
// first, then one without (the trim's room exhausted), never an empty one.
func (r *topicRun) rank() int {
	switch {
	case r.kept == 0:
		return 0
	case r.room > 0:
		return 2
	}
	return 1
}

// keep marks in target the quota partitions member m keeps out of claims.
// With room (see trimRoom), topics with room give up first.
func (tt *topicTrimmer) keep(st *state, m memberIdx, claims []int32, quota int32, target []memberIdx, room *trimRoom) {
	n := int64(len(st.members))
	nt := int32(len(st.topics))
	tt.keepable = tt.keepable[:0]
	runs := tt.runs.items[:0]
	for p := range st.overQuota(m, claims) {
		t := st.topicOf[p]
		if k := len(runs); k == 0 || runs[k-1].topic != t {
			runs = append(runs, topicRun{topic: t, from: int32(len(tt.keepable)), tie: ((t-int32(m)%nt)%nt + nt) % nt})
		}
		runs[len(runs)-1].kept++
		tt.keepable = append(tt.keepable, p)
	}
	for i := range runs {
		r := &runs[i]
		r.over = int64(r.kept)*n - int64(st.topics[r.topic].Partitions)
		r.room = 1 // without a room, every topic has room
		if room != nil {
			r.room = room.room[r.topic]
		}
	}
	tt.runs.items = runs
	tt.runs.init()
	for drop := int32(len(tt.keepable)) - quota; drop > 0; drop-- {
		st.stop.at(int(drop))
		r := &tt.runs.items[0]
		r.kept--
		r.over -= n
		r.given++
		if room != nil {
			r.room = max(0, r.room-1)
		}
		tt.runs.fixTop()
	}
	for _, r := range tt.runs.items {
		if room != nil {
			room.freed(r.topic, r.given)
		}
		for _, p := range tt.keepable[r.from : r.from+r.kept] {
			target[p] = m
		}
	}
}
