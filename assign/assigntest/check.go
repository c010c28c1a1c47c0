package assigntest

import (
	"github.com/assignd/assignd/assign"
)

// CheckOption adds optional invariants to Check.
type CheckOption interface{ applyCheck(*checkConfig) }

type checkConfig struct {
	balanced bool
	prev     *assign.Result
	limit    int
}

type checkOptionFunc func(*checkConfig)

func (f checkOptionFunc) applyCheck(c *checkConfig) { f(c) }

// Balanced also checks balance, as Kafka's sticky assignors define it:
//
//   - equal subscriptions (every member subscribes to the same existing
//     topics): the members' partition counts differ by at most one;
//   - otherwise: no partition could move to another subscriber of its topic
//     that has two or more partitions fewer than its holder.
//
// Balance is a property of the plan, and the plan's owners of pending
// partitions are not in the Result. With P pending partitions Check
// therefore reports only what no placement of them could fix: for equal
// subscriptions, when filling every member up to (largest count - 1) takes
// more than P partitions; otherwise, when a holder has at least P+2 more
// partitions than another subscriber of the topic. With nothing pending
// both checks are exact. Default: off (range and roundrobin with unequal
// subscriptions are not balanced by design).
func Balanced() CheckOption { return checkOptionFunc(func(c *checkConfig) { c.balanced = true }) }

// Sticky also checks that the result keeps what prev assigned, where the
// group's subscriptions are equal: every member keeps at least
// min(v, floor(T/N)) of the v partitions prev gave it that still exist and
// that it still subscribes to, T being the partition total and N the member
// count. This is what the constrained (equal-subscription) sticky builder
// guarantees; rack-aware reassignment may legitimately break it, so use it
// on groups without racks. For unequal subscriptions it checks nothing; use
// Moves to compare with a peer instead. Default: off.
func Sticky(prev *assign.Result) CheckOption {
	return checkOptionFunc(func(c *checkConfig) { c.prev = prev })
}

// MaxReports caps how many violations of each kind the error lists in full;
// the rest are summarised in one "... and N more" line per kind. 0 lists
// everything. Default: 20.
func MaxReports(n int) CheckOption { return checkOptionFunc(func(c *checkConfig) { c.limit = n }) }

// Check verifies the invariants every assignment result must satisfy and
// returns every violation it finds, joined (see Violations and Has), or nil.
//
// Always checked:
//   - r.Members has exactly one entry per member of g, sorted by member id;
//   - every partition of every subscribed topic present in g.Topics appears
//     exactly once across all members' Assigned and r.Pending, only for a
//     member that subscribes to its topic; no partition of a topic missing
//     from the metadata or beyond its partition count appears;
//   - all lists (Assigned, Revoked, Pending) have ascending topics, strictly
//     ascending partitions and no empty topic entries;
//   - Revoked lists only partitions the member reported in Owned and is not
//     assigned now;
//   - r.Protocol is EAGER or COOPERATIVE, and the group's if it named one;
//   - under EAGER nothing is pending and no follow-up is required; under
//     COOPERATIVE FollowupRequired is set exactly when Pending is non-empty
//     or a member revokes something (it rejoins),
//     and no partition is Assigned to a member that does not list it in
//     Owned while another member does (KIP-429);
//   - Stats: Partitions is the number of assigned partitions, Revoked and
//     Pending the lengths of those lists, Moved lies between 0 and the
//     number of partitions handed out (under COOPERATIVE it cannot exceed
//     Pending: a partition taken from a live owner is always withheld), and
//     Imbalance is the spread of the members' assigned counts, exactly when
//     nothing is pending and within P of it when P partitions are.
func Check(g *assign.Group, r *assign.Result, opts ...CheckOption) error {
	cfg := checkConfig{limit: 20}
	for _, o := range opts {
		o.applyCheck(&cfg)
	}
	rep := &report{limit: cfg.limit}
	if g == nil || r == nil {
		rep.add(KindResult, "nil group or result")
		return rep.err()
	}
	c := newChecker(g, r, rep)
	c.checkHeader()
	c.checkMembers()
	c.checkLists()
	c.checkCoverage()
	c.checkProtocol()
	c.checkStats()
	if cfg.balanced {
		c.checkBalanced()
	}
	if cfg.prev != nil {
		c.checkSticky(cfg.prev)
	}
	return rep.err()
}
