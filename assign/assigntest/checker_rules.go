package assigntest

import (
	"slices"

	"github.com/assignd/assignd/assign"
)

// Claim marks in the per-partition claimant table besides member indices.
const (
	unclaimed = -1
	contested = -2 // claimed by several members, listed in checker.claims
)

type tpKey struct {
	topic string
	p     int32
}

// checkProtocol checks Revoked always, and the EAGER or COOPERATIVE rules
// for Pending, FollowupRequired and ownership.
func (c *checker) checkProtocol() {
	c.checkRevoked()
	r := c.r
	switch r.Protocol {
	case assign.Eager:
		if len(r.Pending) > 0 {
			c.rep.add(KindPending, "%d pending topic entries under EAGER", len(r.Pending))
		}
		if r.FollowupRequired {
			c.rep.add(KindPending, "follow-up required under EAGER")
		}
	case assign.Cooperative:
		// A member that loses a partition it reported owning revokes it
		// and rejoins (the Java client, franz-go): a follow-up happens.
		revokes := false
		for _, ma := range r.Members {
			revokes = revokes || len(ma.Revoked) > 0
		}
		if (len(r.Pending) > 0 || revokes) != r.FollowupRequired {
			c.rep.add(KindPending, "%d pending topic entries, a member revokes: %v, but FollowupRequired is %v", len(r.Pending), revokes, r.FollowupRequired)
		}
		c.checkOwnedByOther()
	}
}

// checkRevoked: a member revokes only what it reported owning and is not
// assigned now.
func (c *checker) checkRevoked() {
	for ri, ma := range c.r.Members {
		if len(ma.Revoked) == 0 {
			continue
		}
		gi, ok := c.member[ma.ID]
		owned := make(map[tpKey]bool)
		if ok {
			for _, tp := range c.g.Members[gi].Owned {
				for _, p := range tp.Partitions {
					owned[tpKey{tp.Topic, p}] = true
				}
			}
		}
		where := "member " + quote(ma.ID) + " Revoked"
		c.walk(where, ma.Revoked, false, func(t int, name string, p int32) {
			if !owned[tpKey{name, p}] {
				c.rep.add(KindRevoked, "%s: %s-%d, which the member did not report owning", where, name, p)
			}
			if t >= 0 && c.owner[t][p] == int32(ri) {
				c.rep.add(KindRevoked, "%s: %s-%d, which the member is also assigned", where, name, p)
			}
		})
	}
}

// checkOwnedByOther enforces KIP-429: a partition may only be handed to a
// member while no other member still owns it. Being assigned a partition
// one owns is fine even if others claim it too (the generation rule picked
// the claimant; the others see it as revoked).
func (c *checker) checkOwnedByOther() {
	claimant := make([][]int32, len(c.counts))
	claims := make(map[tpKey][]int)
	for gi := range c.g.Members {
		if c.member[c.g.Members[gi].ID] != gi {
			continue
		}
		for _, tp := range c.g.Members[gi].Owned {
			t, ok := c.topicID[tp.Topic]
			if !ok {
				continue
			}
			for _, p := range tp.Partitions {
				if p < 0 || p >= c.counts[t] {
					continue
				}
				if claimant[t] == nil {
					claimant[t] = make([]int32, c.counts[t])
					for i := range claimant[t] {
						claimant[t][i] = unclaimed
					}
				}
				switch cur := claimant[t][p]; {
				case cur == unclaimed:
					claimant[t][p] = int32(gi)
				case cur == int32(gi):
				case cur == contested:
					k := tpKey{tp.Topic, p}
					if !slices.Contains(claims[k], gi) {
						claims[k] = append(claims[k], gi)
					}
				default:
					claimant[t][p] = contested
					claims[tpKey{tp.Topic, p}] = []int{int(cur), gi}
				}
			}
		}
	}
	for gi, ri := range c.resultIdx {
		if ri < 0 {
			continue
		}
		ma := &c.r.Members[ri]
		for _, tp := range ma.Assigned {
			t, ok := c.topicID[tp.Topic]
			if !ok || claimant[t] == nil {
				continue
			}
			for _, p := range tp.Partitions {
				if p < 0 || p >= c.counts[t] {
					continue
				}
				other := -1
				switch cl := claimant[t][p]; {
				case cl == unclaimed || cl == int32(gi):
				case cl == contested:
					if l := claims[tpKey{tp.Topic, p}]; !slices.Contains(l, gi) {
						other = l[0]
					}
				default:
					other = int(cl)
				}
				if other >= 0 {
					c.rep.add(KindOwnedByOther, "%s-%d is assigned to %q while %q still owns it", tp.Topic, p, ma.ID, c.g.Members[other].ID)
				}
			}
		}
	}
}

// assignedCounts returns each group member's number of assigned
// partitions (0 when it has no entry) and the totals of the lists.
func (c *checker) assignedCounts() (perMember []int, assigned, pendingN int) {
	perMember = make([]int, len(c.g.Members))
	for gi, ri := range c.resultIdx {
		if ri >= 0 {
			perMember[gi] = countPartitions(c.r.Members[ri].Assigned)
		}
	}
	for _, ma := range c.r.Members {
		assigned += countPartitions(ma.Assigned)
	}
	return perMember, assigned, countPartitions(c.r.Pending)
}

func countPartitions(l []assign.TopicPartitions) int {
	n := 0
	for _, tp := range l {
		n += len(tp.Partitions)
	}
	return n
}

func spread(counts []int) (lo, hi int) {
	if len(counts) == 0 {
		return 0, 0
	}
	lo, hi = counts[0], counts[0]
	for _, n := range counts[1:] {
		lo, hi = min(lo, n), max(hi, n)
	}
	return lo, hi
}

// checkStats compares Stats with the lists.
func (c *checker) checkStats() {
	s := c.r.Stats
	perMember, assigned, pend := c.assignedCounts()
	revoked := 0
	for _, ma := range c.r.Members {
		revoked += countPartitions(ma.Revoked)
	}
	if s.Partitions != assigned {
		c.rep.add(KindStats, "Stats.Partitions is %d but %d partitions are assigned", s.Partitions, assigned)
	}
	if s.Pending != pend {
		c.rep.add(KindStats, "Stats.Pending is %d but %d partitions are pending", s.Pending, pend)
	}
	if s.Revoked != revoked {
		c.rep.add(KindStats, "Stats.Revoked is %d but %d partitions are revoked", s.Revoked, revoked)
	}
	if s.Moved < 0 || s.Moved > assigned+pend {
		c.rep.add(KindStats, "Stats.Moved is %d, outside 0..%d", s.Moved, assigned+pend)
	}
	if c.r.Protocol == assign.Cooperative && s.Moved > pend {
		c.rep.add(KindStats, "Stats.Moved is %d but only %d partitions are pending: under COOPERATIVE a moved partition is withheld", s.Moved, pend)
	}
	lo, hi := spread(perMember)
	switch {
	case pend == 0 && s.Imbalance != hi-lo:
		c.rep.add(KindStats, "Stats.Imbalance is %d but assigned counts range from %d to %d", s.Imbalance, lo, hi)
	case s.Imbalance < 0 || s.Imbalance < hi-lo-pend || s.Imbalance > hi-lo+pend:
		c.rep.add(KindStats, "Stats.Imbalance is %d, impossible with assigned counts %d..%d and %d pending", s.Imbalance, lo, hi, pend)
	}
}

// equalSubscriptions reports whether every group member subscribes to the
// same topics among those in the metadata with partitions.
func (c *checker) equalSubscriptions() bool {
	var first []int
	for gi := range c.g.Members {
		var mine []int
		for _, t := range c.subs[gi] {
			if c.counts[t] > 0 {
				mine = append(mine, t)
			}
		}
		if gi == 0 {
			first = mine
		} else if !slices.Equal(first, mine) {
			return false
		}
	}
	return true
}

// checkBalanced is the Balanced option; see its doc for the rule.
func (c *checker) checkBalanced() {
	perMember, _, pend := c.assignedCounts()
	if c.equalSubscriptions() {
		lo, hi := spread(perMember)
		if pend == 0 {
			if hi-lo > 1 {
				c.rep.add(KindImbalance, "equal subscriptions but member counts range from %d to %d", lo, hi)
			}
			return
		}
		need := 0
		for _, n := range perMember {
			need += max(0, hi-1-n)
		}
		if need > pend {
			c.rep.add(KindImbalance, "equal subscriptions: counts range from %d to %d and %d pending partitions cannot even them out", lo, hi, pend)
		}
		return
	}
	// Per topic, the least-loaded subscriber.
	least := make([]int, len(c.counts))
	for t := range least {
		least[t] = -1
	}
	for gi := range c.g.Members {
		for _, t := range c.subs[gi] {
			if least[t] < 0 || perMember[gi] < perMember[least[t]] {
				least[t] = gi
			}
		}
	}
	for gi, ri := range c.resultIdx {
		if ri < 0 {
			continue
		}
		for _, tp := range c.r.Members[ri].Assigned {
			t, ok := c.topicID[tp.Topic]
			if !ok || least[t] < 0 {
				continue
			}
			if lo := perMember[least[t]]; perMember[gi]-lo >= 2+pend {
				c.rep.add(KindImbalance, "member %q holds %d partitions, some of %q, which member %q subscribes to holding only %d",
					c.g.Members[gi].ID, perMember[gi], tp.Topic, c.g.Members[least[t]].ID, lo)
			}
		}
	}
}

// checkSticky is the Sticky option; see its doc for the rule.
func (c *checker) checkSticky(prev *assign.Result) {
	if len(c.g.Members) == 0 || !c.equalSubscriptions() {
		return
	}
	total := 0
	for _, t := range c.subs[0] {
		total += int(c.counts[t])
	}
	floor := total / len(c.g.Members)
	before := make(map[string][]assign.TopicPartitions, len(prev.Members))
	for _, ma := range prev.Members {
		before[ma.ID] = ma.Assigned
	}
	for gi, ri := range c.resultIdx {
		if ri < 0 {
			continue
		}
		id := c.g.Members[gi].ID
		valid, kept := 0, 0
		for _, tp := range before[id] {
			t, ok := c.topicID[tp.Topic]
			if !ok || !c.subscribes(gi, t) {
				continue
			}
			for _, p := range tp.Partitions {
				if p < 0 || p >= c.counts[t] {
					continue
				}
				valid++
				if c.owner[t][p] == int32(ri) {
					kept++
				}
			}
		}
		if want := min(valid, floor); kept < want {
			c.rep.add(KindNotSticky, "member %q kept %d of its %d previous partitions, want at least %d", id, kept, valid, want)
		}
	}
}
