package assign

// cooperativeAdjust is the KIP-429 post-pass, run over any assignor's plan
// when the group is COOPERATIVE. A partition may only go to its target this
// round if no other member still owns it:
//
//   - owned by nobody (new, or orphaned by a member that left): given out now;
//   - owned by its target: kept;
//   - owned by another member: withheld (pending). The owner does not find
//     it in its assignment, so it revokes it and rejoins; the next round
//     gives it to the target. The group is told a follow-up is required.
//   - claimed by several members in the same generation (KAFKA-12984):
//     withheld from everyone, its claimants included, until they revoke it.
//
// Because the rule only compares the plan with settled ownership, nothing is
// ever revoked and assigned in the same round, whatever generations the
// members report (KAFKA-14639), and no assignor can make a cooperative
// group unsafe. target is modified in place (withheld partitions become -1)
// and the withheld partitions are returned ascending.
func (st *state) cooperativeAdjust(target []memberIdx) (pending []int32) {
	for p, t := range target {
		st.stop.at(p)
		if t < 0 {
			continue
		}
		if o := st.prev[p]; (o >= 0 && o != t) || (o < 0 && st.contested != nil && st.contested[p]) {
			pending = append(pending, int32(p))
			target[p] = -1
		}
	}
	return pending
}
