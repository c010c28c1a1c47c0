package assign

import (
	"fmt"
	"iter"
	"slices"
)

// resolveClaims reads every member's previous partitions through the
// assignor's memberData rule and settles who owned each partition.
//
// Conflicting claims are settled by generation (KAFKA-12984, KIP-792): the
// claim with the highest generation wins; a claim without a generation
// (NoGeneration) loses to any real one (KAFKA-13419); when two or more
// members claim a partition in the same highest generation, nobody owns it
// and it is marked contested, so that the cooperative post-pass withholds it
// from everyone this round. Unlike the Java client, the outcome does not
// depend on the order members are visited in, and no state survives the call.
func (st *state) resolveClaims(a Assignor) {
	n := st.numPartitions()
	st.prev = filledAs[memberIdx](&st.ints, n, -1)
	prevGen := st.ints.take(n)
	st.gen = st.ints.take(len(st.members))

	unreadable := 0
	// Claims rarely exceed one per partition (more means conflicts); the
	// arena has room for that, and append grows past it if needed.
	flat := st.ints.take(n)[:0]
	var ignored, stale, contested int
	var unsubscribedOwned map[memberIdx][]TopicPartitions
	// The sticky assignor reads history from user data; what its members
	// report owning (Member.Owned) is read apart, for Revoked only. The
	// others read history from Member.Owned: owned and claims are one.
	_, reportsUserData := a.(userDataHistory)
	st.owned = st.claims
	var ownedFlat []int32
	if reportsUserData {
		st.owned = make([][]int32, len(st.members))
	}

	step := 0 // partitions read, for polling
	for i, member := range st.members {
		st.stop.at(step)
		step++
		m := memberIdx(i)
		owned, gen, readable := a.memberData(member)
		if gen < 0 {
			// Every negative generation is an absent one, as for the Java
			// client: -5 must not outrank "none" (-1) in a claim.
			gen = NoGeneration
		}
		st.gen[i] = gen
		if !readable {
			unreadable++
		}
		var c []int32
		var unsub []TopicPartitions
		c, flat, unsub = st.readOwned(owned, flat, &step, &ignored)
		st.claims[i] = c
		if reportsUserData {
			// Revocation reads what the member reports owning, not the
			// history in its user data. What no longer exists is dropped
			// without a warning: the warning is about history.
			var lost int
			st.owned[i], ownedFlat, unsub = st.readOwned(member.Owned, ownedFlat, &step, &lost)
		}
		if len(unsub) > 0 {
			if unsubscribedOwned == nil {
				unsubscribedOwned = make(map[memberIdx][]TopicPartitions)
			}
			unsubscribedOwned[m] = unsub
		}

		g := st.gen[i]
		for _, p := range c {
			st.stop.at(step)
			step++
			switch o := st.prev[p]; {
			case o == -1 && (st.contested == nil || !st.contested[p]):
				st.prev[p], prevGen[p] = m, g
			case g > prevGen[p]:
				if o == -1 {
					st.contested[p] = false
					st.setReason(p, ReasonNone)
					contested--
				}
				st.prev[p], prevGen[p] = m, g
				st.loseClaim(p, o)
				stale++
			case g == prevGen[p]:
				if o != -1 {
					if st.contested == nil {
						st.contested = make([]bool, n)
					}
					st.contested[p] = true
					st.setReason(p, ReasonContested)
					st.prev[p] = -1
					contested++
				}
				stale++
			default:
				st.loseClaim(p, m)
				stale++
			}
		}
	}
	st.unsubscribedOwned = unsubscribedOwned
	if unreadable > 0 {
		st.warnings = append(st.warnings, fmt.Sprintf("%d member(s)' user data could not be decoded and was ignored (no history, no generation)", unreadable))
	}
	if ignored > 0 {
		st.warnings = append(st.warnings, fmt.Sprintf("%d owned partition(s) of topics or partitions that no longer exist were ignored", ignored))
	}
	if stale > 0 {
		st.warnings = append(st.warnings, fmt.Sprintf("%d conflicting ownership claim(s) were resolved by generation", stale))
	}
	if contested > 0 {
		st.warnings = append(st.warnings, fmt.Sprintf("%d partition(s) claimed by several members in the same generation are withheld from all of them", contested))
	}
}

// readOwned appends to flat the global partitions that owned lists in
// subscribed topics and returns them ascending without duplicates, with
// flat grown past them, and what it lists of existing topics that nobody
// subscribes to any more (which the member must give up). Partitions that
// do not exist are counted in ignored.
func (st *state) readOwned(owned []TopicPartitions, flat []int32, step, ignored *int) (c, grown []int32, unsub []TopicPartitions) {
	// Count in locals, so the loops below keep them in registers.
	n, lost := *step, 0
	begin := len(flat)
	cursor := 0 // owned lists are usually sorted by topic: walk st.topics alongside
	for _, tp := range owned {
		t, ok := st.lookupTopic(tp.Topic, &cursor)
		if !ok {
			// A topic nobody subscribes to any more: the owner must give
			// it up; remember it for the revocation report.
			if mi, exists := st.meta[tp.Topic]; exists {
				mt := &st.group.Topics[mi]
				var keep []int32
				for _, p := range tp.Partitions {
					st.stop.at(n)
					n++
					if p >= 0 && p < mt.Partitions {
						keep = append(keep, p)
					} else {
						lost++
					}
				}
				if len(keep) > 0 {
					unsub = append(unsub, TopicPartitions{Topic: tp.Topic, Partitions: keep})
				}
			} else {
				lost += len(tp.Partitions)
			}
			continue
		}
		base, count := st.start[t], st.start[t+1]-st.start[t]
		for _, p := range tp.Partitions {
			st.stop.at(n)
			n++
			if p < 0 || p >= count {
				lost++
				continue
			}
			flat = append(flat, base+p)
		}
	}
	c = flat[begin:len(flat):len(flat)]
	if !strictlyAscending(c) {
		st.stop.sort(c)
		c = slices.Compact(c)
	}
	*step, *ignored = n, *ignored+lost
	return c, flat[:begin+len(c)], unsub
}

// lookupTopic finds a topic's dense id. Owned lists are written sorted by
// topic, so the next topic is usually at *cursor or just after it; the map
// is the fallback.
func (st *state) lookupTopic(name string, cursor *int) (int32, bool) {
	for c := *cursor; c < len(st.topics) && c < *cursor+2; c++ {
		if st.topics[c].Name == name {
			*cursor = c + 1
			return int32(c), true
		}
	}
	t, ok := st.topicIndex(name)
	if ok {
		*cursor = int(t) + 1
	}
	return t, ok
}

// strictlyAscending reports whether ps is sorted without duplicates, as
// owned lists written by Kafka clients are.
func strictlyAscending(ps []int32) bool {
	for i := 1; i < len(ps); i++ {
		if ps[i] <= ps[i-1] {
			return false
		}
	}
	return true
}

// loseClaim records that member loser's claim on p lost to a higher
// generation (-1: the claims of several members, contested until then).
// The table is allocated at the first stale claim.
func (st *state) loseClaim(p int32, loser memberIdx) {
	if st.staleLoser == nil {
		st.staleLoser = filledAs(&st.ints, st.numPartitions(), noStaleClaim)
	}
	st.staleLoser[p] = loser
}

// noStaleClaim marks, in staleLoser, a partition without a stale claim.
const noStaleClaim memberIdx = -2

// ownedClaims yields every member's claims that it owned before (st.prev),
// each with the member, polling as it goes: what a plan keeps first.
func (st *state) ownedClaims() iter.Seq2[memberIdx, int32] {
	return func(yield func(memberIdx, int32) bool) {
		step := 0
		for i, c := range st.claims {
			m := memberIdx(i)
			for _, p := range c {
				st.stop.at(step)
				step++
				if st.prev[p] == m && !yield(m, p) {
					return
				}
			}
		}
	}
}

// overQuota yields, of claims (member m's, ascending), the partitions m
// owned before, for a trimmer to choose the ones m keeps within its quota.
// Each is marked as given up for balance first, which a kept one never
// reads.
func (st *state) overQuota(m memberIdx, claims []int32) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		for i, p := range claims {
			st.stop.at(i)
			if st.prev[p] != m {
				continue
			}
			st.setReason(p, ReasonBalance) // reason: balance (over quota); read only if not kept
			if !yield(p) {
				return
			}
		}
	}
}
