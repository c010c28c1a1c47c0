package assign

import (
	"cmp"
	"slices"
)

// kip848MaxBalancePasses bounds the rebalancing stage of the heterogeneous
// uniform assignor, as the broker's does (16 passes over the topics, KAFKA-17710):
// unusual overlapping subscriptions may stay not fully balanced.
const kip848MaxBalancePasses = 16

// uniformHeterogeneous is the broker's uniform assignor for members with
// different subscriptions (KIP-848; Kafka's
// UniformHeterogeneousAssignmentBuilder as reworked in KAFKA-17710), in
// three stages:
//
//  1. Import: every member keeps what it owned of the topics it still
//     subscribes to. A member's load is its total count, all topics.
//  2. Fill: topic by topic, in topicOrder, the topic's unowned partitions
//     (ascending) go to its least-loaded subscribers, in the level-filling
//     order of [loadLevels].
//  3. Balance: topic by topic, for topics with two subscribers or more,
//     partitions (each giver's highest first) move from the topic's most
//     loaded subscribers to its least loaded ones until the two differ by
//     one partition or less, or no loaded one holds a partition of the
//     topic. The passes over the topics repeat until one pass moves
//     nothing, at most kip848MaxBalancePasses times.
//
// Balance is by total load, so per-topic skew remains possible. Members are
// numbered by member id (the broker: its member map's order) and ties
// between topics go by name (the broker: by topic id).
func (st *state) uniformHeterogeneous(target []memberIdx) {
	n := len(st.members)
	load := st.ints.take(n)
	for p, o := range st.prev {
		st.stop.at(p)
		if o >= 0 && st.subscribes(o, st.topicOf[p]) {
			target[p] = o
			load[o]++
		}
	}
	lv := loadLevels{load: load, sorted: make([]int32, 0, n)}

	order := st.topicOrder(nil)
	for _, t := range order {
		first := true
		for p := st.start[t]; p < st.start[t+1]; p++ {
			st.stop.at(int(p))
			if target[p] >= 0 {
				continue
			}
			if first {
				lv.init(st.subscribers[t], &st.stop)
				first = false
			}
			m := lv.nextLeast()
			target[p] = memberIdx(m)
			load[m]++
		}
	}

	shared := func(t int32) bool { return len(st.subscribers[t]) >= 2 }
	order = st.topicOrder(shared)
	if len(order) == 0 {
		return
	}
	b := topicBalancer{st: st, target: target, lv: &lv, from: st.ints.take(n), to: st.ints.take(n)}
	last := -1 // index in order of the last topic that moved something
	for pass := 0; pass < kip848MaxBalancePasses; pass++ {
		for i, t := range order {
			if i == last {
				// A whole pass since the last move: nothing more will move.
				return
			}
			if moved := b.balance(t); moved > 0 || last < 0 {
				last = i
			}
		}
	}
}

// topicOrder returns the subscribed topics (those keep says yes to, all when
// keep is nil) in the broker's order: most partitions per subscriber first,
// then fewest subscribers, then by name. The ratio is compared as a float64
// quotient, as the broker compares it.
func (st *state) topicOrder(keep func(t int32) bool) []int32 {
	out := make([]int32, 0, len(st.topics))
	for t := range st.topics {
		st.stop.at(t)
		if keep == nil || keep(int32(t)) {
			out = append(out, int32(t))
		}
	}
	step := 0
	slices.SortStableFunc(out, func(a, b int32) int {
		step = st.stop.over(step, 1)
		pa, pb := st.start[a+1]-st.start[a], st.start[b+1]-st.start[b]
		sa, sb := len(st.subscribers[a]), len(st.subscribers[b])
		if c := cmp.Compare(float64(pb)/float64(sb), float64(pa)/float64(sa)); c != 0 {
			return c
		}
		if c := cmp.Compare(sa, sb); c != 0 {
			return c
		}
		return cmp.Compare(a, b) // dense ids ascend with names
	})
	return out
}

// topicBalancer moves partitions of one topic from its most loaded
// subscribers to its least loaded ones (stage 3 of uniformHeterogeneous).
type topicBalancer struct {
	st     *state
	target []memberIdx
	lv     *loadLevels
	parts  []int32 // the topic's partitions grouped by owner
	// from[m], to[m]: member m's partitions of the topic not yet given up
	// are parts[from[m]:to[m]].
	from, to []int32
}

// balance runs one topic's rebalancing and returns how many partitions
// moved.
func (b *topicBalancer) balance(t int32) int {
	st, lv := b.st, b.lv
	subs := st.subscribers[t]
	if lv.init(subs, &st.stop) <= 1 {
		return 0
	}
	lo, hi := st.start[t], st.start[t+1]
	b.parts = b.parts[:0]
	for p := lo; p < hi; p++ {
		st.stop.at(int(p))
		b.parts = append(b.parts, p)
	}
	// By owner, then partition: ascending p is partition order, and a
	// stable sort keeps it within an owner.
	step := 0
	slices.SortStableFunc(b.parts, func(x, y int32) int {
		step = st.stop.over(step, 1)
		return cmp.Compare(b.target[x], b.target[y])
	})
	for i, m := range subs {
		st.stop.at(i)
		b.from[m], b.to[m] = 0, 0
	}
	for i, p := range b.parts {
		st.stop.at(i)
		m := b.target[p]
		if i == 0 || b.target[b.parts[i-1]] != m {
			b.from[m] = int32(i)
		}
		b.to[m] = int32(i + 1)
	}
	moved := 0
	for i := 0; !lv.balanced(); i++ {
		st.stop.at(i)
		giver := int32(-1)
		for {
			if giver = lv.nextMost(); giver < 0 {
				break
			}
			if b.to[giver] > b.from[giver] {
				break
			}
			lv.exclude() // holds nothing of this topic
		}
		if giver < 0 {
			break
		}
		b.to[giver]--
		p := b.parts[b.to[giver]]
		taker := lv.nextLeast()
		if lv.balanced() {
			break
		}
		lv.load[b.target[p]]--
		b.target[p] = memberIdx(taker)
		lv.load[taker]++
		moved++
	}
	return moved
}

// loadLevels picks members by load for one topic's subscribers, as the
// broker's MemberAssignmentBalancer does. The subscribers are sorted once,
// by load then member index, when init is called; loads change as
// partitions move but the order is not redone, which is what makes the
// picks cheap (and what the broker does).
//
// nextLeast deals from a "least loaded range" at the front of the order:
// every member in it at the range's level gets one before the level rises
// by one and the range grows to the members now at that level. nextMost
// takes from a "most loaded range" at the back, growing leftwards the same
// way; exclude drops the member nextMost returned last from it. The sides
// are balanced once their levels differ by one or less.
type loadLevels struct {
	load   []int32 // per member, shared with the plan
	sorted []int32

	leastEnd, leastLevel, leastNext int
	mostStart, mostEnd, mostLevel   int
	mostNext                        int
}

// init sorts members (non-empty) and resets both ranges; it returns the
// largest minus the smallest load among them.
func (lv *loadLevels) init(members []int32, stop *stopper) int {
	lv.sorted = append(lv.sorted[:0], members...)
	step := 0
	slices.SortFunc(lv.sorted, func(a, b int32) int {
		step = stop.over(step, 1)
		if c := cmp.Compare(lv.load[a], lv.load[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	k := len(lv.sorted)
	lowest, highest := int(lv.load[lv.sorted[0]]), int(lv.load[lv.sorted[k-1]])
	lv.leastEnd, lv.leastLevel, lv.leastNext = 0, lowest-1, 0
	lv.mostStart, lv.mostEnd, lv.mostLevel, lv.mostNext = k, k, highest+1, k-1
	return highest - lowest
}

func (lv *loadLevels) loadAt(i int) int { return int(lv.load[lv.sorted[i]]) }

// nextLeast returns the next member of the least loaded range, raising its
// level and growing it when every member in it had one.
func (lv *loadLevels) nextLeast() int32 {
	if lv.leastNext >= lv.leastEnd {
		lv.leastLevel++
		for lv.leastEnd < len(lv.sorted) && lv.loadAt(lv.leastEnd) == lv.leastLevel {
			lv.leastEnd++
		}
		lv.leastNext = 0
	}
	m := lv.sorted[lv.leastNext]
	lv.leastNext++
	return m
}

// nextMost returns the next member of the most loaded range, from its end
// leftwards, lowering its level and growing it when it is used up; -1 when
// exclusions left no member.
func (lv *loadLevels) nextMost() int32 {
	if lv.mostNext < lv.mostStart {
		if lv.mostEnd <= lv.mostStart && lv.mostStart > 0 {
			// Exclusions emptied the range: take the level of the member
			// left of it, so that the range grows below.
			lv.mostLevel = lv.loadAt(lv.mostStart - 1)
		} else {
			lv.mostLevel--
		}
		for lv.mostStart > 0 && lv.loadAt(lv.mostStart-1) == lv.mostLevel {
			lv.mostStart--
		}
		lv.mostNext = lv.mostEnd - 1
	}
	if lv.mostNext < 0 {
		return -1
	}
	m := lv.sorted[lv.mostNext]
	lv.mostNext--
	return m
}

// exclude removes the member nextMost returned last from the most loaded
// range: it swaps places with the range's last member and the range ends
// one earlier.
func (lv *loadLevels) exclude() {
	i, j := lv.mostNext+1, lv.mostEnd-1
	lv.sorted[i], lv.sorted[j] = lv.sorted[j], lv.sorted[i]
	lv.mostEnd--
}

func (lv *loadLevels) balanced() bool { return lv.mostLevel-lv.leastLevel <= 1 }
