package assign

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"slices"
)

// maxBoundClasses bounds the subset test of loadBound: with more topic
// classes than this, each class is compared with itself only, which
// keeps the bound's cost linear (the bound is then weaker, never wrong).
const maxBoundClasses = 32

// loadBound returns the total load and a lower bound on the largest
// member load of any plan: no plan does better than the mean member load,
// than the heaviest partition, or than the load of the topics whose
// subscribers all belong to one class's subscribers, shared evenly among
// those.
func (st *state) loadBound(cls *topicClasses) (total, bound float64) {
	heaviest := 0.0
	for i, w := range st.weight {
		st.stop.at(i)
		total += w
		heaviest = max(heaviest, w)
	}
	if len(st.members) == 0 {
		return total, 0
	}
	bound = max(total/float64(len(st.members)), heaviest)
	if st.equalSubs || cls == nil {
		return total, bound
	}
	per := make([]float64, len(cls.subscribers))
	for t := range st.topics {
		for p := st.start[t]; p < st.start[t+1]; p++ {
			per[cls.classOf[t]] += st.weight[p]
		}
	}
	for k, subs := range cls.subscribers {
		sum := per[k]
		if len(cls.subscribers) <= maxBoundClasses {
			sum = 0
			for j, other := range cls.subscribers {
				if subset(other, subs) {
					sum += per[j]
				}
			}
		}
		bound = max(bound, sum/float64(len(subs)))
	}
	return total, bound
}

// subset reports whether ascending a is a subset of ascending b.
func subset(a, b []int32) bool {
	if len(a) > len(b) {
		return false
	}
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return false
		}
	}
	return true
}

// loadStats measures a load-aware plan (pending partitions counted with
// their target).
func (st *state) loadStats(target []memberIdx) *LoadStats {
	var cls *topicClasses
	if !st.equalSubs {
		cls = newTopicClasses(st)
	}
	total, bound := st.loadBound(cls)
	loads := make([]float64, len(st.members))
	for p, m := range target {
		st.stop.at(p)
		if m >= 0 {
			loads[m] += st.weight[p]
		}
	}
	s := &LoadStats{Total: total, Bound: bound, Snapshot: st.weightSnapshot()}
	for _, l := range loads {
		s.Max = max(s.Max, l)
	}
	if len(loads) > 0 {
		s.Mean = total / float64(len(loads))
	}
	return s
}

// weightSnapshot is [LoadStats.Snapshot].
func (st *state) weightSnapshot() string {
	h := sha256.New()
	var buf [8 * 512]byte
	for i := 0; i < len(st.weight); i += 512 {
		st.stop.at(i)
		chunk := st.weight[i:min(i+512, len(st.weight))]
		for j, w := range chunk {
			binary.BigEndian.PutUint64(buf[8*j:], math.Float64bits(w))
		}
		h.Write(buf[:8*len(chunk)])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)[:8])
}
