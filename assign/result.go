package assign

// planStats measures a plan before the cooperative post-pass: how many
// partitions leave their previous owner, how far apart the members'
// partition counts are, and why partitions change owner or stay (why;
// the post-pass withholds partitions but changes no reason).
func (st *state) planStats(target []memberIdx, why *ReasonCounts) (moved, imbalance int) {
	counts := st.ints.take(len(st.members))
	// Partitions nobody owned are counted afterwards, as the assigned ones
	// less the owned ones and those with a reason (contested): on a first
	// assignment every partition is one, and this loop is the engine's
	// tightest.
	rs, owned, unownedWhy := st.reasons, 0, 0
	for p, t := range target {
		st.stop.at(p)
		if t < 0 {
			continue
		}
		counts[t]++
		if o := st.prev[p]; o >= 0 {
			owned++
			if o != t {
				moved++
				r := ReasonNone
				if rs != nil {
					r = rs[p]
				}
				why[r]++
			}
		} else if rs != nil && rs[p] != ReasonNone {
			why[rs[p]]++
			unownedWhy++
		}
	}
	assigned := 0
	for _, c := range counts {
		assigned += int(c)
	}
	why[ReasonNoOwner] += assigned - owned - unownedWhy
	why[ReasonHeld] += st.held
	st.countStale(target, why)
	if len(counts) == 0 {
		return moved, 0
	}
	lo, hi := counts[0], counts[0]
	for _, c := range counts[1:] {
		lo, hi = min(lo, c), max(hi, c)
	}
	return moved, int(hi - lo)
}

// result turns the final target (withheld partitions already -1) into the
// public Result. Lists share two backing arrays so that a million-partition
// group costs a handful of allocations, not one per member and topic.
func (st *state) result(a Assignor, target []memberIdx, pending []int32, moved, imbalance int, why *ReasonCounts) *Result {
	nm := len(st.members)
	r := &Result{
		Assignor:         a.Name(),
		Version:          a.Version(),
		Protocol:         st.protocol,
		Members:          make([]MemberAssignment, nm),
		FollowupRequired: len(pending) > 0,
		Warnings:         st.warnings,
	}
	// Bucket partitions by member, walking topics in order so that each
	// member's list comes out sorted by (topic, partition) and its topic
	// runs can be counted on the way, without a topic lookup per partition.
	begin := st.ints.take(nm + 1)
	last := st.ints.filled(nm, -1)
	runs := 0
	for t := range int32(len(st.topics)) {
		for i, m := range target[st.start[t]:st.start[t+1]] {
			st.stop.at(i)
			if m < 0 {
				continue
			}
			begin[m+1]++
			if last[m] != t {
				last[m] = t
				runs++
			}
		}
	}
	for i := range nm {
		begin[i+1] += begin[i]
	}
	assigned := int(begin[nm])
	parts := st.ints.take(assigned)  // partition numbers
	topics := st.ints.take(assigned) // their topics
	fill := st.ints.take(nm)
	copy(fill, begin)
	for t := range int32(len(st.topics)) {
		base := st.start[t]
		for i, m := range target[base:st.start[t+1]] {
			st.stop.at(i)
			if m >= 0 {
				parts[fill[m]], topics[fill[m]] = int32(i), t
				fill[m]++
			}
		}
	}
	tps := make([]TopicPartitions, runs)
	k := 0
	step := 0
	for i, m := range st.members {
		step = st.stop.over(step, int(begin[i+1]-begin[i]))
		from := k
		for j, end := begin[i], begin[i+1]; j < end; {
			t, e := topics[j], j
			for e < end && topics[e] == t {
				e++
			}
			// Field by field: cheaper than appending whole structs.
			tps[k].Topic, tps[k].Partitions = st.topics[t].Name, parts[j:e:e]
			k++
			j = e
		}
		ma := &r.Members[i]
		ma.ID = m.ID
		if k > from {
			ma.Assigned = tps[from:k:k]
		}
	}
	// Under both protocols: an EAGER member that reports owned partitions
	// (subscription v1+) learns what it no longer has as well.
	revoked := st.fillRevoked(r, target)
	// A COOPERATIVE member that loses a partition it reported owning
	// revokes it and rejoins, whatever the reason, a stale or contested
	// claim included: the Java client (ConsumerCoordinator.onJoinComplete
	// requests a rejoin whenever owned minus assigned is not empty) and
	// franz-go (it rejoins after revoking what it lost) both do. The group
	// rebalances again, pending or not; the flag says so.
	if st.protocol == Cooperative && !st.opts.target && revoked > 0 {
		r.FollowupRequired = true
	}
	// The list stops at the last partition with a reason: none to find,
	// no pass at all.
	if n := min(st.opts.moveDetail, why.Total()); n > 0 {
		r.Moves = st.moveDetail(target, n)
	}
	if len(pending) > 0 {
		r.Pending = st.appendRuns(nil, pending)
	}
	r.Stats = Stats{Partitions: assigned, Moved: moved, Revoked: revoked, Pending: len(pending), Imbalance: imbalance, Reasons: *why}
	return r
}

// appendRuns groups ascending global partitions by topic, rewriting ps in
// place into partition numbers; the appended entries alias ps.
func (st *state) appendRuns(dst []TopicPartitions, ps []int32) []TopicPartitions {
	for i := 0; i < len(ps); {
		t := st.topicOf[ps[i]]
		base, j := st.start[t], i
		for j < len(ps) && st.topicOf[ps[j]] == t {
			ps[j] -= base
			j++
		}
		dst = append(dst, TopicPartitions{Topic: st.topics[t].Name, Partitions: ps[i:j:j]})
		i = j
	}
	return dst
}

// fillRevoked lists, per member, the partitions it reports owning that it
// is not assigned now (target, withheld partitions already -1), and
// returns their number: the one place Revoked is decided, for EAGER and
// COOPERATIVE alike. What it owns of topics nobody subscribes to any more
// is revoked too.
func (st *state) fillRevoked(r *Result, target []memberIdx) int {
	total := 0
	step := 0
	for i, c := range st.owned {
		var lost []int32
		for _, p := range c {
			st.stop.at(step)
			step++
			if target[p] != memberIdx(i) {
				lost = append(lost, p)
			}
		}
		if len(lost) > 0 {
			r.Members[i].Revoked = st.appendRuns(nil, lost)
			total += len(lost)
		}
		if extra := st.unsubscribedOwned[memberIdx(i)]; len(extra) > 0 {
			before := len(lost)
			r.Members[i].Revoked = mergeTopicPartitions(r.Members[i].Revoked, extra, &st.stop)
			// Count after merging: the member may list a partition twice.
			total -= before
			for _, tp := range r.Members[i].Revoked {
				total += len(tp.Partitions)
			}
		}
	}
	return total
}
