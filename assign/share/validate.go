package share

import (
	"fmt"

	"github.com/assignd/assignd/assign/internal/runner"
)

// Limits on one group, so that every run's work is bounded by its input:
// a run touches each subscription, each current pair and each slot a
// constant number of times (plus a sort of each topic's items), and it
// polls its context as it goes.
const (
	MaxMembers = 10_000
	// MaxPartitions bounds the partitions of all the group's topics.
	MaxPartitions = 1 << 20
	// MaxPairs bounds the plan's (partition, member) pairs: the sum over
	// topics of max(subscribers, assignable partitions), and so the
	// subscriptions too.
	MaxPairs = 1 << 22
)

var invalid = runner.Invalid

func memberID(m *Member) string { return m.ID }

// validate checks ids, counts and the limits; current pairs are never an
// error (stale ones are dropped).
func validate(g *Group) error {
	if err := runner.CheckMembers(g.Members, MaxMembers, memberID); err != nil {
		return err
	}
	topics := make(map[string]int32, len(g.Topics))
	total := 0
	for i, t := range g.Topics {
		switch _, dup := topics[t.Name]; {
		case t.Name == "":
			return invalid("", fmt.Sprintf("topics[%d].name", i), "empty")
		case dup:
			return invalid("", fmt.Sprintf("topics[%d].name", i), "%q appears twice", t.Name)
		case t.Partitions < 0:
			return invalid("", fmt.Sprintf("topics[%d].partitions", i), "negative: %d", t.Partitions)
		}
		total += int(t.Partitions)
		if total > MaxPartitions {
			return invalid("", fmt.Sprintf("topics[%d].partitions", i), "more than %d partitions in all", MaxPartitions)
		}
		for j, q := range t.Unassignable {
			if q < 0 || q >= t.Partitions {
				return invalid("", fmt.Sprintf("topics[%d].unassignable[%d]", i, j), "partition %d of a topic of %d", q, t.Partitions)
			}
		}
		topics[t.Name] = t.Partitions
	}
	subs := 0
	for _, m := range g.Members {
		for j, t := range m.Topics {
			if t == "" {
				return invalid(m.ID, fmt.Sprintf("topics[%d]", j), "empty")
			}
		}
		subs += len(m.Topics)
	}
	// A topic's slots, max(subscribers, partitions), are at most their
	// sum.
	if subs+total > MaxPairs {
		return invalid("", "topics", "%d subscriptions and %d partitions, more than %d pairs", subs, total, MaxPairs)
	}
	return nil
}
