package assign

// cutShortWarning is the warning of a plan whose refinements a best-effort
// stop skipped (see [WithBestEffort]).
const cutShortWarning = "stopped early by its context: every partition is placed, but balance refinements were skipped; the plan may be uneven until the next rebalance"

// workLimitWarning is the warning of a plan whose balance repair stopped at
// its work limit (see repair).
const workLimitWarning = "balancing stopped at its work limit; the plan may be uneven until the next rebalance"

// cutShort finishes a plan cut short, whose refinements a best-effort stop
// skipped or whose balance repair ran out of work budget (both the same to
// the group: a valid plan that may be uneven): it warns once (the stop's
// warning when both happened, since the stop skipped more), and under
// COOPERATIVE, when nothing is pending, withholds one partition so that the
// group rebalances again by itself and the next round carries the repair
// on from what the members then own.
//
// KIP-429 gives an assignor one way to make a cooperative group rejoin: a
// member whose assignment lacks a partition it owns revokes it and then
// rejoins. So the partition withheld is one its owner kept (withholding a
// partition nobody owns would leave it unconsumed with nobody rejoining),
// and it stays within the post-pass's rule: it goes to nobody this round.
// It is taken from the most loaded member that kept a partition of a topic
// with a subscriber at least two partitions lighter (lowest such partition):
// in the follow-up it is free and goes to a lighter subscriber, so each
// forced follow-up makes progress even if it is cut short in turn, and once
// no such partition is left nothing is withheld (a group whose every round
// is cut short cannot rebalance forever). Nothing is withheld either when
// nobody kept anything (a first assignment: no member could revoke) or
// under [WithFreeze].
//
// Under EAGER an assignor cannot ask for a follow-up (members revoke
// everything at every rebalance, and no rejoin follows); the warning is all.
func (st *state) cutShort(target []memberIdx, pending []int32, why *ReasonCounts) []int32 {
	if st.stop.cut {
		st.warnings = append(st.warnings, cutShortWarning)
	} else {
		st.warnings = append(st.warnings, workLimitWarning)
	}
	if st.protocol != Cooperative || len(pending) > 0 || st.opts.freeze || st.opts.target {
		return pending
	}
	if p := st.reliefPartition(target); p >= 0 {
		// Its owner is the most loaded: it goes for balance, whatever
		// kept it here so far.
		if was := st.keptReason(p); was != ReasonNone {
			why[was]--
		}
		st.setReason(p, ReasonBalance) // reason: balance (relief of a plan cut short)
		why[ReasonBalance]++
		target[p] = -1
		return []int32{p}
	}
	return pending
}

// reliefPartition returns the partition cutShort withholds, or -1.
func (st *state) reliefPartition(target []memberIdx) int32 {
	count := make([]int32, len(st.members))
	for _, m := range target {
		if m >= 0 {
			count[m]++
		}
	}
	// low[t]: the fewest partitions any subscriber of topic t holds.
	low := make([]int32, len(st.topics))
	for t, subs := range st.subscribers {
		if t > 0 && len(subs) > 0 && len(st.subscribers[t-1]) == len(subs) && &st.subscribers[t-1][0] == &subs[0] {
			low[t] = low[t-1] // equal subscriptions share one list
			continue
		}
		low[t] = 1<<31 - 1
		for _, m := range subs {
			low[t] = min(low[t], count[m])
		}
	}
	best := int32(-1)
	for p, m := range target {
		if m < 0 || st.prev[p] != m || count[m]-low[st.topicOf[p]] < 2 {
			continue
		}
		if best < 0 || count[m] > count[target[best]] {
			best = int32(p)
		}
	}
	return best
}
