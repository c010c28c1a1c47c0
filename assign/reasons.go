package assign

import "fmt"

// MoveReason says why a partition changes owner this round, is withheld
// from every member, or stays with its owner although the plan would have
// moved it. Each is decided where the engine decides the partition's target
// (see the package documentation), never worked out afterwards by comparing
// plans.
//
// New reasons are appended (a load-aware assignor's "load" is expected
// next); the numbers are stable, as the API's MoveReason enum mirrors them.
type MoveReason uint8

const (
	// ReasonNone: the partition stays with its owner.
	ReasonNone MoveReason = iota
	// ReasonNoOwner: nobody in the group reports owning the partition: a
	// new topic or partition, a first assignment, or an owner that left the
	// group (JoinGroup carries only the members present, so the engine
	// cannot tell these apart).
	ReasonNoOwner
	// ReasonUnsubscribed: the owner no longer subscribes to the topic.
	ReasonUnsubscribed
	// ReasonBalance: the owner holds more than its share (its quota, or
	// two or more partitions more than a subscriber that can take it).
	ReasonBalance
	// ReasonRack: the partition has no replica in its owner's rack and goes
	// to a member whose rack has one (KIP-881).
	ReasonRack
	// ReasonStaleClaim: a member reported owning the partition in an older
	// generation than another member's claim, which won (KAFKA-12984,
	// KIP-792); From names the member whose claim lost.
	ReasonStaleClaim
	// ReasonContested: two or more members claimed the partition in the
	// same, highest generation; nobody owns it (under COOPERATIVE it is
	// withheld from all of them this round, KAFKA-12984).
	ReasonContested
	// ReasonHeld: the plan would move the partition, but the move budget
	// ([WithMaxMoves]) or a freeze ([WithFreeze]) keeps it with its owner
	// this round.
	ReasonHeld
	// ReasonLoad: a load-aware assignor moves the partition to even out
	// member load (partition weights).
	ReasonLoad

	numReasons
)

// NumReasons is the number of MoveReason values, ReasonNone included: the
// length of [ReasonCounts].
const NumReasons = int(numReasons)

var reasonNames = [numReasons]string{
	ReasonNone:         "none",
	ReasonNoOwner:      "no_owner",
	ReasonUnsubscribed: "unsubscribed",
	ReasonBalance:      "balance",
	ReasonRack:         "rack",
	ReasonStaleClaim:   "stale_claim",
	ReasonContested:    "contested",
	ReasonHeld:         "held",
	ReasonLoad:         "load",
}

var reasonTexts = [numReasons]string{
	ReasonNone:         "stays with its owner",
	ReasonNoOwner:      "no previous owner (new partition or topic, first assignment, or the owner left the group)",
	ReasonUnsubscribed: "owner no longer subscribes to the topic",
	ReasonBalance:      "owner over its quota (balance)",
	ReasonRack:         "no replica in the owner's rack (KIP-881)",
	ReasonStaleClaim:   "claim lost to a higher generation",
	ReasonContested:    "contested claim, same generation",
	ReasonHeld:         "held back by the move budget or a freeze",
	ReasonLoad:         "moved to even out member load",
}

// String returns the reason's stable short name, as metrics and logs label
// it: "no_owner", "unsubscribed", "balance", "rack", "stale_claim",
// "contested", "held" (or "none").
func (r MoveReason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return fmt.Sprintf("MoveReason(%d)", uint8(r))
}

// Text describes the reason in a few words, for people.
func (r MoveReason) Text() string {
	if r < numReasons {
		return reasonTexts[r]
	}
	return r.String()
}

// ReasonCounts counts partitions by [MoveReason]. ReasonCounts[ReasonNone]
// is always zero.
type ReasonCounts [numReasons]int

// Total is the number of partitions counted.
func (c *ReasonCounts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// Move is one partition that changes owner, is withheld or is held back,
// and why (see [WithMoveDetail]).
type Move struct {
	Topic     string
	Partition int32
	// From is the member that owned the partition before this round; for
	// ReasonStaleClaim the member whose claim lost. Empty when nobody
	// owned it (ReasonNoOwner) or several members claimed it
	// (ReasonContested).
	From string
	// To is the member the partition is assigned to this round; empty when
	// it is withheld from everyone (it is then in Result.Pending). For
	// ReasonHeld, To is From.
	To     string
	Reason MoveReason
}

// setReason records why p leaves its previous owner (or, ReasonHeld, why
// it stays). The table is allocated at the first reason: a first
// assignment, or a group whose members only left, records none (no
// previous owner is the reason of every partition without one).
func (st *state) setReason(p int32, r MoveReason) {
	if st.reasons == nil {
		st.reasons = make([]MoveReason, st.numPartitions())
	}
	st.reasons[p] = r
}

// reasonAt is the reason recorded for p, ReasonNone if none.
func (st *state) reasonAt(p int32) MoveReason {
	if st.reasons == nil {
		return ReasonNone
	}
	return st.reasons[p]
}

// markTrimmed records that member m's owned partitions among claims may be
// given up for balance: m owns more than its quota. Reasons are only read
// where a partition's target differs from its previous owner, so marking
// the ones m then keeps is harmless, and cheaper than finding the others.
func (st *state) markTrimmed(m memberIdx, claims []int32) {
	for _, p := range claims {
		if st.prev[p] == m {
			st.setReason(p, ReasonBalance)
		}
	}
}

// noteRackPlacement records, as p goes to m because m's rack hosts a
// replica of p, that the move is for rack locality (KIP-881) when p leaves
// an owner that still subscribes to its topic and whose rack hosts no
// replica; otherwise the assignor's layout moves it.
func (st *state) noteRackPlacement(p int32, m memberIdx) {
	if o := st.prev[p]; o >= 0 && o != m && !st.rackMatches(o, p) && st.subscribes(o, st.topicOf[p]) {
		st.setReason(p, ReasonRack)
	}
}

// layoutReasons gives the reasons of an assignor that lays partitions out
// from the members and topics alone, ignoring who owned what (range,
// roundrobin): a partition leaves its owner because the owner no longer
// subscribes to its topic, or else because the layout, which spreads the
// topic evenly over its subscribers, gives it to another (balance), unless
// its placement already recorded a rack move.
func (st *state) layoutReasons(target []memberIdx) {
	claimed := false
	for _, c := range st.claims {
		claimed = claimed || len(c) > 0
	}
	if !claimed {
		return // a first assignment: nobody owned anything
	}
	for p, o := range st.prev {
		st.stop.at(p)
		if o < 0 || target[p] == o || st.reasonAt(int32(p)) != ReasonNone {
			continue
		}
		if st.subscribes(o, st.topicOf[p]) {
			st.setReason(int32(p), ReasonBalance)
		} else {
			st.setReason(int32(p), ReasonUnsubscribed)
		}
	}
}

// keptReason is the reason of partition p that stays with its owner: held
// back, a stale claim that lost to it, or none.
func (st *state) keptReason(p int32) MoveReason {
	if st.reasonAt(p) == ReasonHeld {
		return ReasonHeld
	}
	if st.staleLoser != nil && st.staleLoser[p] != noStaleClaim {
		return ReasonStaleClaim
	}
	return ReasonNone
}

// reasonOf is the reason of p whose final target (withheld: -1) is final.
func (st *state) reasonOf(p int32, final memberIdx) MoveReason {
	o := st.prev[p]
	switch {
	case o >= 0 && final == o:
		return st.keptReason(p)
	case o < 0 && st.reasonAt(p) == ReasonNone:
		return ReasonNoOwner
	}
	return st.reasonAt(p)
}

// countStale adds to why the partitions kept by the member whose claim
// beat a stale one (after the plan and its limits: a partition that moved
// on counts under its move's reason).
func (st *state) countStale(target []memberIdx, why *ReasonCounts) {
	for p, l := range st.staleLoser {
		st.stop.at(p)
		if o := st.prev[p]; l != noStaleClaim && o >= 0 && target[p] == o && st.reasonAt(int32(p)) != ReasonHeld {
			why[ReasonStaleClaim]++
		}
	}
}

// moveDetail lists, in (topic, partition) order, the first limit
// partitions with a reason (limit > 0, at most as many as have one);
// target is final (withheld partitions -1). A server keeping a history
// runs it on every call, so a partition its owner keeps costs a few loads
// and compares.
func (st *state) moveDetail(target []memberIdx, limit int) []Move {
	out := make([]Move, 0, limit)
	rs, stale := st.reasons, st.staleLoser
	for t := range int32(len(st.topics)) {
		base := st.start[t]
		for p := base; p < st.start[t+1]; p++ {
			st.stop.at(int(p))
			o, f := st.prev[p], target[p]
			if o == f && o >= 0 && (rs == nil || rs[p] != ReasonHeld) && (stale == nil || stale[p] == noStaleClaim) {
				continue // kept
			}
			why := st.reasonOf(p, f)
			if why == ReasonNone {
				continue
			}
			mv := Move{Topic: st.topics[t].Name, Partition: p - base, Reason: why}
			if o >= 0 {
				mv.From = st.members[o].ID
			}
			if why == ReasonStaleClaim {
				mv.From = ""
				if l := st.staleLoser[p]; l >= 0 {
					mv.From = st.members[l].ID
				}
			}
			if f >= 0 {
				mv.To = st.members[f].ID
			}
			if out = append(out, mv); len(out) == limit {
				return out
			}
		}
	}
	return out
}
