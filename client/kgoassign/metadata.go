package kgoassign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
)

// subscriptionVersion is the ConsumerProtocolSubscription version franz-go
// v1.22's balancers write (v3, KIP-881). It is pinned rather than
// wire.MaxVersion: the point is to write what the native balancers write,
// not the newest version the codec knows.
const subscriptionVersion = 3

// JoinGroupMetadata encodes the member's ConsumerProtocolSubscription
// exactly as franz-go's native balancer of the same name does, so that the
// coordinator sees no difference between shim and native members:
//
//   - every protocol: version 3, the topics in the given (sorted) order and
//     the generation of the member's current assignment;
//   - sticky and cooperative-sticky: user data holding the current
//     assignment and, unless it is -1, the generation
//     (StickyAssignorUserData V1, or V0 without a generation), topics
//     sorted by name;
//   - cooperative-sticky: the same partitions as owned partitions (KIP-429).
//
// The rack is left null: kgo writes the kgo.Rack option into it after
// calling the balancer, for native and shim balancers alike.
func (b *Balancer) JoinGroupMetadata(topics []string, current map[string][]int32, generation int32) []byte {
	sub := wire.Subscription{Version: subscriptionVersion, Topics: topics, Generation: generation}
	if b.sticky {
		owned := byTopic(current)
		sub.UserData = wire.AppendStickyUserData(nil, owned, generation, generation != assign.NoGeneration)
		if b.protocol == assign.Cooperative {
			sub.Owned = owned
		}
	}
	return wire.AppendSubscription(nil, &sub)
}

// ParseSyncAssignment decodes the ConsumerProtocolAssignment the leader
// sent in SyncGroup (any version, any leader: shim, native or another
// client) into topic → partitions. A topic listed twice has its lists
// merged.
func (b *Balancer) ParseSyncAssignment(assignment []byte) (map[string][]int32, error) {
	a, err := wire.DecodeAssignment(assignment)
	if err != nil {
		return nil, fmt.Errorf("kgoassign: parsing the SyncGroup assignment: %w", err)
	}
	out := make(map[string][]int32, len(a.Partitions))
	for _, tp := range a.Partitions {
		out[tp.Topic] = append(out[tp.Topic], tp.Partitions...)
	}
	return out, nil
}

// byTopic lists current sorted by topic; partitions stay in the order kgo
// gives them (sorted), as the native balancers keep them.
func byTopic(current map[string][]int32) []wire.TopicPartitions {
	out := make([]wire.TopicPartitions, 0, len(current))
	for t, ps := range current {
		out = append(out, wire.TopicPartitions{Topic: t, Partitions: ps})
	}
	slices.SortFunc(out, func(x, y wire.TopicPartitions) int { return strings.Compare(x.Topic, y.Topic) })
	return out
}
