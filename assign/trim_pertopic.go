package assign

import "container/heap"

// topicTrimmer chooses which owned partitions a member keeps when it owns
// more than its quota (cooperative-sticky@2). It gives up partitions of the
// topic in which its share is furthest above an even share
// (count × members − topic partitions), one at a time, so that what it
// keeps spreads across topics like a fresh round robin would. Ties go to
// the topic that follows the member's index (modulo the topic count), so
// that members trimming at once give up different topics and whoever takes
// the partitions receives a spread of topics too. Within a topic it keeps
// the lowest partition numbers.
type topicTrimmer struct {
	runs     runHeap
	keepable []int32
}

type topicRun struct {
	topic      int32
	from, kept int32 // the member's keepable partitions of the topic: keepable[from : from+kept]
	over       int64 // kept × members − partitions of the topic
	tie        int32 // rotation of the topic relative to the member
}

type runHeap []topicRun

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	if h[i].over != h[j].over {
		return h[i].over > h[j].over
	}
	return h[i].tie < h[j].tie
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(topicRun)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// keep marks in target the quota partitions member m keeps out of claims.
func (tt *topicTrimmer) keep(st *state, m int32, claims []int32, quota int32, target []int32) {
	n := int64(len(st.members))
	nt := int32(len(st.topics))
	tt.keepable = tt.keepable[:0]
	tt.runs = tt.runs[:0]
	for i, p := range claims {
		st.stop.at(i)
		if st.prev[p] != m {
			continue
		}
		st.setReason(p, ReasonBalance) // reason: balance (over quota); read only if not kept
		t := st.topicOf[p]
		if k := len(tt.runs); k == 0 || tt.runs[k-1].topic != t {
			tt.runs = append(tt.runs, topicRun{topic: t, from: int32(len(tt.keepable)), tie: ((t-m%nt)%nt + nt) % nt})
		}
		tt.runs[len(tt.runs)-1].kept++
		tt.keepable = append(tt.keepable, p)
	}
	for i := range tt.runs {
		r := &tt.runs[i]
		r.over = int64(r.kept)*n - int64(st.topics[r.topic].Partitions)
	}
	heap.Init(&tt.runs)
	for drop := int32(len(tt.keepable)) - quota; drop > 0; drop-- {
		st.stop.at(int(drop))
		r := &tt.runs[0]
		r.kept--
		r.over -= n
		heap.Fix(&tt.runs, 0)
	}
	for _, r := range tt.runs {
		for _, p := range tt.keepable[r.from : r.from+r.kept] {
			target[p] = m
		}
	}
}
