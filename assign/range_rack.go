package assign

import "slices"

// Rack-aware range (KIP-881), as the Java RangeAssignor does it:
//
//   - The gate is per topic: some subscriber of the topic must be on a rack
//     that hosts a replica of the topic, and not every partition of the
//     topic may have replicas in every rack of the topic. Rack-aware mode is
//     on when any topic passes.
//   - Step A, rack matching. Topics with the same subscribers (whose racks
//     are then the same too) and the same partition count form a group.
//     A group of two or more topics is co-partitioned: partition p of all of
//     them goes to the first member, in member order, that may take one more
//     partition of the topics and whose rack hosts a replica of p of every
//     topic (or that has no rack). This runs whether or not the group's
//     topics pass the gate themselves. A lone topic that passes the gate
//     gives each member, in order, the first partitions whose replicas are
//     in its rack, up to the member's allowance.
//   - Step B: per topic, each member in order takes the first still
//     unassigned partitions up to its allowance, racks ignored.
//
// The allowance keeps the plain range counts: with n partitions and m
// members each member takes n/m, and one more while fewer than n%m members
// have taken more than n/m.

// rangeTopic is the per-topic allowance bookkeeping of rack-aware range.
type rangeTopic struct {
	quota int32   // n/m
	extra int32   // members that may still take quota+1
	count []int32 // partitions taken, per consumer position
}

// allowance is how many more partitions consumer k may take.
func (rt *rangeTopic) allowance(k int) int32 {
	a := rt.quota - rt.count[k]
	if rt.extra > 0 {
		a++
	}
	return max(a, 0)
}

// took records that consumer k took n more partitions.
func (rt *rangeTopic) took(k int, n int32) {
	rt.count[k] += n
	if rt.count[k] > rt.quota {
		rt.extra--
	}
}

// rangeRacks holds the scratch state of one rack-aware range plan.
type rangeRacks struct {
	st     *state
	ord    []int32   // rank -> member
	cons   [][]int32 // topic -> consumer ranks in member order
	target []memberIdx
	topics []rangeTopic

	// stamp/mark mark racks per topic without clearing between topics.
	stamp []int32
	mark  int32
	// cursor is matchRacks' per-rack scan position, reused across topics.
	cursor []int32
}

// planRangeRacks runs rack-aware range if any topic passes the gate and
// reports whether it did; otherwise target is untouched.
func planRangeRacks(st *state, ord []int32, cons [][]int32, target []memberIdx) bool {
	rr := &rangeRacks{st: st, ord: ord, cons: cons, target: target, stamp: make([]int32, len(st.rackNames)),
		cursor: make([]int32, len(st.rackNames)+1)}
	needs := make([]bool, len(st.topics))
	on := false
	for t := range st.topics {
		// Rack matching is a refinement: stopped (best effort), the
		// plain range split is a valid plan.
		if st.stop.skip() {
			return false
		}
		needs[t] = rr.gate(t)
		on = on || needs[t]
	}
	if !on {
		return false
	}
	for i := range target {
		st.stop.at(i)
		target[i] = -1
	}
	rr.topics = make([]rangeTopic, len(st.topics))
	total := 0
	for t := range st.topics {
		total += len(cons[t])
	}
	counts := make([]int32, total)
	for t := range st.topics {
		n, m := st.start[t+1]-st.start[t], int32(len(cons[t]))
		rr.topics[t] = rangeTopic{quota: n / m, extra: n % m, count: counts[:m:m]}
		counts = counts[m:]
	}
	for _, g := range rr.groups() {
		if st.stop.skip() {
			break // Step B alone gives a valid plan
		}
		if len(g) > 1 {
			rr.coPartitioned(g)
		} else if needs[g[0]] {
			rr.matchRacks(g[0])
		}
	}
	for t := range st.topics {
		st.stop.at(t)
		rr.fill(t)
	}
	return true
}

// gate is the Java useRackAwareAssignment test for topic t.
func (rr *rangeRacks) gate(t int) bool {
	st := rr.st
	rr.mark++
	union := 0
	for i, r := range st.partRacks[st.partRackIdx[st.start[t]]:st.partRackIdx[st.start[t+1]]] {
		st.stop.at(i)
		if rr.stamp[r] != rr.mark {
			rr.stamp[r] = rr.mark
			union++
		}
	}
	hosted := false
	for _, k := range rr.cons[t] {
		if r := st.memberRack[rr.ord[k]]; r >= 0 && rr.stamp[r] == rr.mark {
			hosted = true
			break
		}
	}
	if !hosted {
		return false
	}
	for p := st.start[t]; p < st.start[t+1]; p++ {
		st.stop.at(int(p))
		if int(st.partRackIdx[p+1]-st.partRackIdx[p]) != union {
			return true
		}
	}
	return false
}

// groups returns the topics whose consumers include a member with a rack,
// grouped by (consumers, partition count). Topics whose consumers have no
// rack are left out: Step A cannot change anything for them.
func (rr *rangeRacks) groups() [][]int {
	st := rr.st
	var ts []int
	for t := range st.topics {
		for _, k := range rr.cons[t] {
			if st.memberRack[rr.ord[k]] >= 0 {
				ts = append(ts, t)
				break
			}
		}
	}
	step := 0
	key := func(a, b int) int {
		step = st.stop.over(step, len(rr.cons[a]))
		if c := slices.Compare(rr.cons[a], rr.cons[b]); c != 0 {
			return c
		}
		if c := cmpInt(int(st.start[a+1]-st.start[a]), int(st.start[b+1]-st.start[b])); c != 0 {
			return c
		}
		return cmpInt(a, b)
	}
	slices.SortFunc(ts, key)
	var out [][]int
	for i := 0; i < len(ts); {
		j := i + 1
		for j < len(ts) && slices.Compare(rr.cons[ts[i]], rr.cons[ts[j]]) == 0 &&
			st.start[ts[i]+1]-st.start[ts[i]] == st.start[ts[j]+1]-st.start[ts[j]] {
			j++
		}
		out = append(out, ts[i:j:j])
		i = j
	}
	return out
}

// hasRack reports whether a replica of global partition p is on rack r.
func (rr *rangeRacks) hasRack(p int32, r int32) bool {
	st := rr.st
	for _, x := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
		if x == r {
			return true
		}
	}
	return false
}

// matchRacks is Step A for a lone topic: each consumer in order takes the
// first unassigned partitions that have a replica in its rack (any, if it
// has no rack), up to its allowance. A cursor per rack remembers where the
// last consumer of that rack stopped: everything before it is assigned or
// off-rack, so each rack scans the topic once.
func (rr *rangeRacks) matchRacks(t int) {
	st, state := rr.st, &rr.topics[t]
	start, end := st.start[t], st.start[t+1]
	// cursor[r+1] is where rack r (or, at 0, the rack-less) resumes.
	cursor := rr.cursor[:len(st.rackNames)+1]
	for i := range cursor {
		cursor[i] = start
	}
	left := end - start
	for k, rank := range rr.cons[t] {
		if left == 0 || st.stop.skipAt(k) {
			break
		}
		want := state.allowance(k)
		if want == 0 {
			continue
		}
		m := memberIdx(rr.ord[rank])
		r := st.memberRack[m]
		p := cursor[r+1]
		took := int32(0)
		for ; p < end && took < want; p++ {
			if st.stop.skipAt(int(p)) {
				break
			}
			if rr.target[p] < 0 && (r < 0 || rr.hasRack(p, r)) {
				rr.target[p] = m
				st.noteRackPlacement(p, m) // reason: rack
				took++
			}
		}
		cursor[r+1] = p
		if took > 0 {
			state.took(k, took)
			left -= took
		}
	}
}

// coPartitioned is Step A for a group of topics with the same consumers and
// partition count. Every assignment hits all topics of the group alike, so
// their allowances stay identical and the first topic's stands for all.
//
// Eligibility only ever shrinks (counts grow, the extra allowance runs
// out), so per rack a pointer to the first still-eligible consumer of that
// rack finds "the first eligible consumer whose rack hosts p" in time
// proportional to the racks of p, not to the consumers.
func (rr *rangeRacks) coPartitioned(g []int) {
	st := rr.st
	cons := rr.cons[g[0]]
	lead := &rr.topics[g[0]]
	n := st.start[g[0]+1] - st.start[g[0]]

	// Consumer positions bucketed by rack; bucket 0 holds the rack-less.
	nr := len(st.rackNames)
	off := make([]int32, nr+2)
	for _, rank := range cons {
		off[st.memberRack[rr.ord[rank]]+2]++
	}
	for i := 1; i < len(off); i++ {
		off[i] += off[i-1]
	}
	byRack := make([]int32, len(cons))
	fill := slices.Clone(off[:nr+1])
	for k, rank := range cons {
		b := st.memberRack[rr.ord[rank]] + 1
		byRack[fill[b]] = int32(k)
		fill[b]++
	}
	head := slices.Clone(off[:nr+1]) // first possibly eligible, per bucket
	first := func(b int32) int32 {
		for head[b] < off[b+1] && lead.allowance(int(byRack[head[b]])) == 0 {
			head[b]++
		}
		if head[b] < off[b+1] {
			return byRack[head[b]]
		}
		return -1
	}

	var common, scratch []int32
	for p := range n {
		if st.stop.skipAt(int(p)) {
			return
		}
		common = append(common[:0], st.partRacks[st.partRackIdx[st.start[g[0]]+p]:st.partRackIdx[st.start[g[0]]+p+1]]...)
		for _, t := range g[1:] {
			q := st.start[t] + p
			scratch = intersectSorted(scratch[:0], common, st.partRacks[st.partRackIdx[q]:st.partRackIdx[q+1]])
			common, scratch = scratch, common
		}
		best := first(0)
		for _, r := range common {
			if k := first(r + 1); k >= 0 && (best < 0 || k < best) {
				best = k
			}
		}
		if best < 0 {
			continue
		}
		m := memberIdx(rr.ord[cons[best]])
		for _, t := range g {
			rr.target[st.start[t]+p] = m
			st.noteRackPlacement(st.start[t]+p, m) // reason: rack
			rr.topics[t].took(int(best), 1)
		}
	}
}

// fill is Step B for topic t: each consumer in order takes the first
// unassigned partitions up to its allowance.
func (rr *rangeRacks) fill(t int) {
	st, state := rr.st, &rr.topics[t]
	p, end := st.start[t], st.start[t+1]
	for k, rank := range rr.cons[t] {
		want := state.allowance(k)
		took := int32(0)
		for ; p < end && took < want; p++ {
			st.stop.at(int(p))
			if rr.target[p] < 0 {
				rr.target[p] = memberIdx(rr.ord[rank])
				took++
			}
		}
		if took > 0 {
			state.took(k, took)
		}
		for p < end && rr.target[p] >= 0 {
			st.stop.at(int(p))
			p++
		}
		if p == end {
			return
		}
	}
}

// intersectSorted appends to dst the elements common to the ascending
// lists a and b.
func intersectSorted(dst, a, b []int32) []int32 {
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			dst = append(dst, a[i])
			i++
			j++
		}
	}
	return dst
}
