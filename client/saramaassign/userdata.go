package saramaassign

import (
	"fmt"
	"slices"
	"strings"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
)

// AssignmentData is the user data sarama puts beside a member's
// partitions in the SyncGroup assignment; sarama calls it on the leader
// for every member of the plan, with the generation being formed.
//
// sarama's eager sticky strategy carries a member's previous assignment
// through this user data: the member keeps the bytes and sends them back
// as the user data of its next JoinGroup subscription, where the next
// leader reads them. For "sticky" it is therefore exactly what sarama's
// own sticky strategy writes, StickyAssignorUserData V1 (KIP-341): the
// member's topics, each with its partitions in the order given, then
// generationID. sarama writes the topics in Go map order, which changes
// from call to call; the adapter writes them sorted by name, so that the
// same plan always gives the same bytes. Apart from that order the bytes
// are sarama's, and every reader (sarama, Java, franz-go, assignd) reads
// the topics in any order.
//
// For "range" and "roundrobin" it returns nil, as sarama does: those
// assignors keep no state.
func (s *Strategy) AssignmentData(memberID string, topics map[string][]int32, generationID int32) ([]byte, error) {
	if !s.sticky {
		return nil, nil
	}
	return stickyUserData(topics, generationID)
}

// stickyUserData encodes StickyAssignorUserData V1. A topic name too long
// for the protocol's int16 length is an error, as it is for sarama's
// encoder, rather than the codec's panic.
func stickyUserData(topics map[string][]int32, generation int32) ([]byte, error) {
	prev := make([]assign.TopicPartitions, 0, len(topics))
	for t, ps := range topics {
		if len(t) > wire.MaxStringLen {
			return nil, fmt.Errorf("saramaassign: topic name of %d bytes exceeds the protocol limit of %d", len(t), wire.MaxStringLen)
		}
		prev = append(prev, assign.TopicPartitions{Topic: t, Partitions: ps})
	}
	slices.SortFunc(prev, func(x, y assign.TopicPartitions) int { return strings.Compare(x.Topic, y.Topic) })
	return wire.AppendStickyUserData(nil, prev, generation, true), nil
}
