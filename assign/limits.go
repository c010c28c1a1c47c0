package assign

// freeze keeps every partition with its previous owner when that owner still
// subscribes to the topic, on its rack or not; only partitions without such
// an owner follow the plan. An incident tool:
// nothing moves between live members.
func (st *state) freeze(target []memberIdx) {
	for p, o := range st.prev {
		st.stop.at(p)
		if o >= 0 && st.keepable(o, int32(p)) {
			if target[p] != o {
				st.setReason(int32(p), ReasonHeld) // reason: held (freeze)
				st.held++
			}
			target[p] = o
		}
	}
}

// capMoves lets at most max partitions leave a live previous owner that could
// keep them; the rest stay where they are this round and move in a later
// one. Which partitions move first is deterministic: ascending global
// partition order, i.e. by (topic, partition).
func (st *state) capMoves(target []memberIdx, max int) {
	moved := 0
	for p, o := range st.prev {
		st.stop.at(p)
		if o < 0 || target[p] == o || target[p] < 0 || !st.keepable(o, int32(p)) {
			continue
		}
		if moved < max {
			moved++
			continue
		}
		st.setReason(int32(p), ReasonHeld) // reason: held (move budget)
		st.held++
		target[p] = o
	}
}

// keepable reports whether member m may keep partition p: it still
// subscribes to its topic. A replica in the member's rack is not required
// here: the plan gives a partition kept off its owner's rack up only when a
// member on a replica's rack can take it within the balance (realign), so a
// group whose racks cannot all be matched keeps its owners; and a move
// made for rack locality counts against the move cap like any other.
func (st *state) keepable(m memberIdx, p int32) bool {
	return st.subscribes(m, st.topicOf[p])
}
