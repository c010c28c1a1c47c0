package assign

import (
	"slices"
	"strings"
)

// The KIP-848 server-side assignors' reproductions (see [KIP848Uniform] and
// [KIP848Range]). Their names are not protocol names a Kafka client sends:
// a policy rule puts them behind one.
const (
	NameKIP848Uniform = "kip848-uniform"
	NameKIP848Range   = "kip848-range"
)

// KIP848Uniform returns "kip848-uniform"@1: the consumer group
// coordinator's default server-side assignor, "uniform" (KIP-848,
// org.apache.kafka.coordinator.group.assignor.UniformAssignor of Kafka
// 4.0-4.2), reproduced so that a classic group can run the broker's
// algorithm before it migrates, and a migration report can say what the
// broker would do.
//
// The broker's "current assignment" of a member is here the partitions
// it owns (Member.Owned after claim resolution, see [Member]). The
// broker's hash-ordered iterations become fixed orders: members by member
// id, topics by name, partitions ascending (docs/kip848.md). Like the
// broker's since KAFKA-16694, it ignores racks.
//
// With every member subscribing to the same topic names (the broker's
// HOMOGENEOUS subscription type, counted over names, missing topics
// included) it balances the total count first and keeps what it can
// second, see uniformHomogeneous; otherwise it keeps what members own and
// balances topic by topic, see uniformHeterogeneous.
//
// Under KIP-848 the broker reconciles the target with member epochs; under
// the classic protocol Run's KIP-429 post-pass does it for COOPERATIVE
// groups. EAGER groups report nothing owned, so the plan starts afresh.
func KIP848Uniform() Assignor { return kip848Uniform{} }

// KIP848Range returns "kip848-range"@1: the group coordinator's "range"
// server-side assignor (KIP-848, RangeAssignor of
// org.apache.kafka.coordinator.group.assignor, rewritten in KAFKA-16944).
// Per topic, its subscribers, static members first by instance id, then the
// others by member id, take contiguous ranges, the first ones one more: so
// topics with the same subscribers and partition count are co-partitioned.
// It recomputes from scratch (not sticky) and, unlike "range"@1 (KIP-881),
// ignores racks.
func KIP848Range() Assignor { return kip848Range{} }

// The owned partitions of a KIP-848 assignor's members stand for the
// broker's current assignment.
type kip848Uniform struct {
	cooperativeProtocols
	ownedHistory
}

func (kip848Uniform) Name() string { return NameKIP848Uniform }
func (kip848Uniform) Version() int { return 1 }

func (kip848Uniform) plan(st *state, target []memberIdx) {
	if brokerHomogeneous(st) {
		st.uniformHomogeneous(target)
	} else {
		st.uniformHeterogeneous(target)
	}
	// Both builders keep every owned partition that fits the quota and
	// the owner's subscription; one they drop left for balance, or because
	// its owner no longer subscribes, which is what layoutReasons tells.
	st.layoutReasons(target)
}

// kip848Range ignores history: owned partitions only matter for the
// revocation bookkeeping in Run.
type kip848Range struct {
	cooperativeProtocols
	ownedHistory
}

func (kip848Range) Name() string { return NameKIP848Range }
func (kip848Range) Version() int { return 1 }

// plan: both of the broker's paths (homogeneous and heterogeneous) come to
// the same per-topic split over the topic's subscribers in sorted order, the
// order of range@1 without its rack step.
func (kip848Range) plan(st *state, target []memberIdx) {
	ord := memberInfoOrder(st.members, &st.stop)
	cons := subscriberRanks(st, ord)
	for t := range st.topics {
		st.stop.at(t)
		rangeSplit(target[st.start[t]:st.start[t+1]], cons[t], ord, &st.stop)
	}
	st.layoutReasons(target)
}

// brokerHomogeneous reports whether the group coordinator would call the
// group's subscriptions HOMOGENEOUS: every member subscribes to the same set
// of topic names. The coordinator counts subscribed names, existing or not
// (ModernGroup.subscriptionType), so two members that agree on the
// existing topics but not on a missing one are HETEROGENEOUS there.
func brokerHomogeneous(st *state) bool {
	if !st.equalSubs {
		return false
	}
	var first []string
	step := 0
	for i, m := range st.members {
		step = st.stop.over(step, len(m.Topics))
		missing := st.missingNames(m.Topics)
		if i == 0 {
			first = missing
			continue
		}
		if !slices.Equal(missing, first) {
			return false
		}
	}
	return true
}

// missingNames returns, sorted and without duplicates, the names in topics
// that are not subscribed topics with partitions; nil when there are none
// (the usual case, which allocates nothing).
func (st *state) missingNames(topics []string) []string {
	var out []string
	for _, name := range topics {
		if _, ok := st.topicIndex(name); !ok {
			out = append(out, name)
		}
	}
	if len(out) > 1 {
		slices.SortFunc(out, strings.Compare)
		out = slices.Compact(out)
	}
	return out
}
