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
}

// keep marks in target the quota partitions member m keeps out of claims
// (ascending global partitions, stale claims included).
func (pt *partitionTrimmer) keep(st *state, m memberIdx, claims []int32, quota int32, target []memberIdx) {
	pt.keepable = pt.keepable[:0]
	pt.runs = pt.runs[:0]
	lo, hi := int32(math.MaxInt32), int32(0) // the smallest and largest partition numbers
	for i, p := range claims {
		st.stop.at(i)
		if st.prev[p] != m {
			continue
		}
		st.setReason(p, ReasonBalance) // reason: balance (over quota); read only if not kept
		t := st.topicOf[p]
		n := int32(len(pt.keepable))
		if k := len(pt.runs); k == 0 || pt.runs[k-1].topic != t {
			pt.runs = append(pt.runs, partitionRun{topic: t, from: n})
		}
		pn := p - st.start[t]
		pt.keepable = append(pt.keepable, pn)
		pt.runs[len(pt.runs)-1].to = n + 1
		lo, hi = min(lo, pn), max(hi, pn)
	}
	// below(x) counts keepable partitions numbered below x; it grows with x.
	// x is the largest number with below(x) ≤ quota.
	step := 0
	below := func(x int32) int32 {
		c := int32(0)
		for _, r := range pt.runs {
			st.stop.at(step)
			step++
			i, _ := slices.BinarySearch(pt.keepable[r.from:r.to], x) // the first at or above x
			c += int32(i)
		}
		return c
	}
	// below(lo) is 0 and below(hi+1) is every keepable partition, more
	// than quota: x is in [lo, hi].
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if below(mid) <= quota {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	left := quota - below(lo) // taken at partition number lo, in topic order
	for _, r := range pt.runs {
		base := st.start[r.topic]
		for _, pn := range pt.keepable[r.from:r.to] {
			st.stop.at(step)
			step++
			if pn > lo || pn == lo && left == 0 {
				break
			}
			if pn == lo {
				left--
			}
			target[base+pn] = m
		}
	}
}
