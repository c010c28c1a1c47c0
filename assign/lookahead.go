package assign

// lookaheadRounds bounds how many follow-ups lookahead plays ahead: each
// is one more run of the plan, and each can only revoke more of what the
// first round keeps, so the loop ends anyway; no group met in the
// property tests needs more than two. A variable so that tests can turn
// lookahead off.
var lookaheadRounds = 4

// lookahead makes a rack-aware cooperative round's follow-up its last
// one. The first round withholds every partition whose owner the plan
// changes; the follow-up plans again from what the owners kept, with the
// withheld partitions free, and its placement can bring home a partition
// that an owner kept off its rack, which the first round's realign could
// not move without unbalancing the plan (the partitions it needed were
// still owned then). The follow-up would then revoke that one, and a
// second follow-up would assign it.
//
// So lookahead plays the follow-up: it plans with the owners reduced to
// what this round assigns (assignedNow, claimsOf), and if that plan
// revokes some of it, takes that plan as target, so that this round
// revokes those too (with the reasons the replayed plan gives; one that
// had no owner keeps none, and simply goes elsewhere at once), and plays
// again. Once a replayed plan revokes
// nothing, it is what the follow-up will compute from this round's
// result, and the follow-up only assigns what this round withholds
// (KIP-881: misaligned partitions come home in one follow-up). A round
// whose first replay revokes nothing keeps its own plan: the follow-up
// settles it as it is.
//
// It runs only where a follow-up can take back what it is given: rack-
// aware realignment on, a round that withholds something and assigns a
// partition off its member's rack that some subscriber's rack hosts, and
// no limit (freeze, move cap, work limit, stop) in play. Cost: one more
// plan per replayed round, in the rounds where it runs.
func lookahead(st *state, target []memberIdx) {
	opts := st.opts
	if !st.rackAware || opts.keepMisaligned || opts.freeze || opts.maxMoves > 0 || opts.target ||
		st.protocol != Cooperative || st.workLimitCut || st.stop.skip() {
		return
	}
	prev, claims := st.prev, st.claims
	defer func() { st.prev, st.claims = prev, claims }()
	var kept []memberIdx
	for round := range lookaheadRounds {
		if !st.followupMayRevoke(target) {
			return
		}
		if kept == nil {
			kept = takeAs[memberIdx](&st.ints, len(target))
		}
		st.assignedNow(target, kept)
		next := filledAs[memberIdx](&st.ints, len(target), -1)
		st.prev, st.claims = kept, st.claimsOf(kept)
		planGeneral(st, next)
		st.prev, st.claims = prev, claims
		st.forgetReplayedOwners(kept)
		if st.workLimitCut || st.stop.skip() {
			st.workLimitCut = false // the replay's: target is whole
			return                  // keep the plan that was not cut short
		}
		revokes := false
		for p, m := range kept {
			st.stop.at(p)
			if m >= 0 && next[p] != m {
				revokes = true
				break
			}
		}
		if !revokes {
			if round > 0 {
				copy(target, next)
			}
			return
		}
		copy(target, next)
	}
}

// forgetReplayedOwners clears the reasons a replay recorded for
// partitions that only it saw owned (owner[p] >= 0, prev[p] < 0): this
// round gives them out at once, and a partition without a previous
// owner has no reason (reasonOf: no owner).
func (st *state) forgetReplayedOwners(owner []memberIdx) {
	if st.reasons == nil {
		return
	}
	for p, m := range owner {
		st.stop.at(p)
		if m >= 0 && st.prev[p] < 0 {
			st.reasons[p] = ReasonNone
		}
	}
}

// assignedNow sets now[p] to the member that this round's result assigns
// p (the owners of the follow-up), or -1: target[p] when it keeps p with
// its owner or p has none (cooperativeAdjust gives it out at once).
func (st *state) assignedNow(target, now []memberIdx) {
	for p, m := range target {
		st.stop.at(p)
		if o := st.prev[p]; o == m || o < 0 && (st.contested == nil || !st.contested[p]) {
			now[p] = m
		} else {
			now[p] = -1
		}
	}
}

// followupMayRevoke reports whether a follow-up to target could revoke
// something: target withholds a partition from its owner (so there is a
// follow-up), and assigns one now off its member's rack whose topic has a
// subscriber on one of its replica racks.
func (st *state) followupMayRevoke(target []memberIdx) bool {
	withholds, offRack := false, false
	var homes []bool // homes[t*racks+r]: a subscriber of topic t is on rack r
	for p, m := range target {
		st.stop.at(p)
		o := st.prev[p]
		switch {
		case o >= 0 && m != o || o < 0 && st.contested != nil && st.contested[p]:
			withholds = true
		case m >= 0 && !offRack && !st.rackMatches(m, int32(p)):
			if homes == nil {
				homes = st.topicRacks()
			}
			offRack = st.hasHome(homes, int32(p))
		}
		if withholds && offRack {
			return true
		}
	}
	return false
}

// topicRacks returns, for each topic t and rack r, whether a subscriber
// of t is on r, at index t*len(rackNames)+r.
func (st *state) topicRacks() []bool {
	racks := len(st.rackNames)
	out := make([]bool, len(st.topics)*racks)
	step := 0
	for m, ts := range st.subs {
		step = st.stop.over(step, len(ts))
		if r := st.memberRack[m]; r >= 0 {
			for _, t := range ts {
				out[int(t)*racks+int(r)] = true
			}
		}
	}
	return out
}

// hasHome reports whether some subscriber of p's topic is on one of p's
// replica racks (homes: see topicRacks).
func (st *state) hasHome(homes []bool, p int32) bool {
	base := int(st.topicOf[p]) * len(st.rackNames)
	for _, r := range st.partRacks[st.partRackIdx[p]:st.partRackIdx[p+1]] {
		if homes[base+int(r)] {
			return true
		}
	}
	return false
}

// claimsOf returns, per member, the partitions owner assigns it,
// ascending: the claims of a round whose members own what owner says.
func (st *state) claimsOf(owner []memberIdx) [][]int32 {
	at := st.ints.take(len(st.members) + 1)
	for p, m := range owner {
		st.stop.at(p)
		if m >= 0 {
			at[m+1]++
		}
	}
	for m := range st.members {
		at[m+1] += at[m]
	}
	flat := st.ints.take(int(at[len(st.members)]))
	out := make([][]int32, len(st.members))
	for m := range out {
		out[m] = flat[at[m]:at[m]:at[m+1]]
	}
	for p, m := range owner {
		st.stop.at(p)
		if m >= 0 {
			out[m] = append(out[m], int32(p))
		}
	}
	return out
}
