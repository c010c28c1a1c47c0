package assign

import (
	"math"
	"slices"
)

// partitionTrimmer chooses which owned partitions a member keeps when it
// owns more than its quota (sticky@1, cooperative-sticky@1): the Java
// client's constrained builder sorts the member's owned partitions by
// partition number, then topic, and keeps the first quota of them
// (AbstractStickyAssignor, ConstrainedAssignmentBuilder; see
// kafka-java-assignors.md §3.4 step 1). Partition 0 of every topic comes
// before partition 1 of any, so a member that owned whole topics keeps an
// even slice of each instead of whole topics (librdkafka #4044).
//
// The member's keepable partitions are read topic by topic, ascending, as
// runs; the kept set is every partition numbered below a threshold x plus,
// at x itself, the first runs in topic order until the quota is met. x is
// found by binary search on the count of partitions below it, so the cost
// is linear in the member's claims plus runs × log² partitions, never a
// sort of the claims.
type partitionTrimmer struct {
	runs     []partitionRun
	keepable []int32 // partition numbers, run after run
}

type partitionRun struct {
	topic    int32
	from, to int32 // keepable[from:to], ascending partition numbers
	given    int32 // partitions of the run given up
}

// keep marks in target the quota partitions member m keeps out of claims
// (ascending global partitions, stale claims included). With room (see
// trimRoom), it first gives up, in the reverse of the keeping order,
// partitions of topics with room, then, if it must give up more, keeps by
// the Java client's rule among what is left.
func (pt *partitionTrimmer) keep(st *state, m memberIdx, claims []int32, quota int32, target []memberIdx, room *trimRoom) {
	pt.keepable = pt.keepable[:0]
	pt.runs = pt.runs[:0]
	for p := range st.overQuota(m, claims) {
		t := st.topicOf[p]
		n := int32(len(pt.keepable))
		if k := len(pt.runs); k == 0 || pt.runs[k-1].topic != t {
			pt.runs = append(pt.runs, partitionRun{topic: t, from: n})
		}
		pt.keepable = append(pt.keepable, p-st.start[t])
		pt.runs[len(pt.runs)-1].to = n + 1
	}
	step := 0
	if room != nil {
		pt.giveUpWithRoom(st, int32(len(pt.keepable))-quota, room, &step)
	}
	pt.keepLowest(st, m, quota, target, &step)
	if room != nil {
		for _, r := range pt.runs {
			room.freed(r.topic, r.given)
		}
	}
}

// giveUpWithRoom gives up to drop partitions, taken in the reverse of the
// Java client's keeping order (highest partition number first, the last
// topic first at equal numbers) and skipping those of a topic without
// room, by shortening each run from its top. The partitions visited form
// a frontier: every partition numbered above x, and at x the runs from
// the last one down; a run gives up min(its room, what it has beyond the
// frontier). x is found by binary search on that count, as keepLowest
// finds its threshold.
func (pt *partitionTrimmer) giveUpWithRoom(st *state, drop int32, room *trimRoom, step *int) {
	if drop <= 0 || len(pt.runs) == 0 {
		return
	}
	lo, hi := int32(math.MaxInt32), int32(0)
	for _, r := range pt.runs {
		lo, hi = min(lo, pt.keepable[r.from]), max(hi, pt.keepable[r.to-1])
	}
	// atOrAbove(x) counts what the runs give up when every partition
	// numbered x or more is visited; it shrinks as x grows.
	atOrAbove := func(x int32) int32 {
		c := int32(0)
		for _, r := range pt.runs {
			st.stop.at(*step)
			*step++
			i, _ := slices.BinarySearch(pt.keepable[r.from:r.to], x)
			c += min(room.room[r.topic], r.to-r.from-int32(i))
		}
		return c
	}
	x := lo
	if atOrAbove(lo) > drop {
		// The largest x with atOrAbove(x) ≥ drop, in [lo, hi].
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if atOrAbove(mid) >= drop {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		x = lo
	}
	// Everything above x within room, then at x from the last run down.
	for i := range pt.runs {
		r := &pt.runs[i]
		j, _ := slices.BinarySearch(pt.keepable[r.from:r.to], x+1)
		r.given = min(room.room[r.topic], r.to-r.from-int32(j))
		drop -= r.given
	}
	for i := len(pt.runs) - 1; i >= 0 && drop > 0; i-- {
		r := &pt.runs[i]
		if n := r.to - r.from - r.given; n > 0 && r.given < room.room[r.topic] && pt.keepable[r.from+n-1] == x {
			r.given++
			drop--
		}
	}
	for i := range pt.runs {
		r := &pt.runs[i]
		r.to -= r.given
	}
}

// keepLowest keeps quota of what the runs hold, lowest partition numbers
// first and topics in name order at each number (the Java client's
// rule), and adds what the rest gives up to each run's given.
func (pt *partitionTrimmer) keepLowest(st *state, m memberIdx, quota int32, target []memberIdx, step *int) {
	lo, hi := int32(math.MaxInt32), int32(-1) // the smallest and largest partition numbers
	held := int32(0)
	for _, r := range pt.runs {
		if r.to > r.from {
			lo, hi = min(lo, pt.keepable[r.from]), max(hi, pt.keepable[r.to-1])
			held += r.to - r.from
		}
	}
	if held <= quota {
		for _, r := range pt.runs {
			base := st.start[r.topic]
			for _, pn := range pt.keepable[r.from:r.to] {
				target[base+pn] = m
			}
		}
		return
	}
	// below(x) counts partitions numbered below x; it grows with x. x is
	// the largest number with below(x) ≤ quota.
	below := func(x int32) int32 {
		c := int32(0)
		for _, r := range pt.runs {
			st.stop.at(*step)
			*step++
			i, _ := slices.BinarySearch(pt.keepable[r.from:r.to], x) // the first at or above x
			c += int32(i)
		}
		return c
	}
	// below(lo) is 0 and below(hi+1) is every partition the runs hold,
	// more than quota: x is in [lo, hi].
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if below(mid) <= quota {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	left := quota - below(lo) // taken at partition number lo, in topic order
	for i := range pt.runs {
		r := &pt.runs[i]
		base := st.start[r.topic]
		kept := int32(0)
		for _, pn := range pt.keepable[r.from:r.to] {
			st.stop.at(*step)
			*step++
			if pn > lo || pn == lo && left == 0 {
				break
			}
			if pn == lo {
				left--
			}
			target[base+pn] = m
			kept++
		}
		r.given += r.to - r.from - kept
	}
}
