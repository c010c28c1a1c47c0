package assign

import (
	"hash/maphash"
	"slices"
)

// topicClasses groups topics that have exactly the same subscribers. Within
// a class every partition can go to the same members, so the general plan
// balances classes, not topics: a group of 500 topics with two distinct
// subscriber sets has two classes.
type topicClasses struct {
	classOf     []classIdx // topic -> class
	subscribers [][]int32  // class -> members, ascending
	topics      [][]int32  // class -> topics, ascending
	// memberClasses[m] lists, ascending, the classes member m subscribes to.
	memberClasses [][]classIdx
}

func newTopicClasses(st *state) *topicClasses {
	c := &topicClasses{classOf: make([]classIdx, len(st.topics))}
	seed := maphash.MakeSeed()
	byHash := make(map[uint64][]classIdx)
	step := 0
	for t, subs := range st.subscribers {
		step = st.stop.over(step, len(subs))
		h := hashMembers(seed, subs)
		found := classIdx(-1)
		for _, k := range byHash[h] {
			if slices.Equal(c.subscribers[k], subs) {
				found = k
				break
			}
		}
		if found < 0 {
			found = classIdx(len(c.subscribers))
			c.subscribers = append(c.subscribers, subs)
			c.topics = append(c.topics, nil)
			byHash[h] = append(byHash[h], found)
		}
		c.classOf[t] = found
		c.topics[found] = append(c.topics[found], int32(t))
	}
	// Members with the same subscription share one subs slice: map each
	// distinct slice once.
	c.memberClasses = make([][]classIdx, len(st.members))
	step = 0
	for m, subs := range st.subs {
		step = st.stop.over(step, len(subs))
		if m > 0 && len(subs) > 0 && len(st.subs[m-1]) == len(subs) && &st.subs[m-1][0] == &subs[0] {
			c.memberClasses[m] = c.memberClasses[m-1]
			continue
		}
		ks := make([]classIdx, 0, 4)
		for _, t := range subs {
			ks = append(ks, c.classOf[t])
		}
		slices.Sort(ks)
		c.memberClasses[m] = slices.Compact(ks)
	}
	return c
}

func hashMembers(seed maphash.Seed, ms []int32) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var b [4]byte
	for _, m := range ms {
		b[0], b[1], b[2], b[3] = byte(m), byte(m>>8), byte(m>>16), byte(m>>24)
		h.Write(b[:])
	}
	return h.Sum64()
}
