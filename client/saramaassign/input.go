package saramaassign

import (
	"fmt"
	"maps"
	"slices"

	"github.com/IBM/sarama"

	"github.com/assignd/assignd/assign"
)

// input is the leader's view of one rebalance in the engine's terms. The
// request to assignd and the in-process fallback are both derived from
// its group, so that they see the same input.
type input struct {
	// group has the members sorted by id, the topics sorted by name and
	// the EAGER protocol. Its generation is 0: sarama does not tell a
	// strategy the generation being formed, and the engine does not use it.
	group *assign.Group
	// listed holds, for each topic whose partition ids are not exactly
	// 0..n-1, the ids sarama listed; the plan keeps only those. nil when
	// every topic is dense, which is always the case with Kafka.
	listed map[string]map[int32]bool
	// partitions is the number of distinct partitions sarama listed.
	partitions int
	// warnings are the adapter's own notes about the input.
	warnings []string
}

// maxSparseCount bounds the count a topic with gaps in its partition ids
// is assigned as: the engine allocates per partition up to the highest
// id, so a list such as [0, 2000000000] would cost gigabytes for two
// partitions.
func maxSparseCount(distinct int) int64 { return 2*int64(distinct) + 1024 }

// newInput converts what sarama hands Plan. Each member's decoded
// ConsumerProtocolSubscription keeps the fields its version carries
// (sarama leaves the others zero, which would otherwise read as
// generation 0 or an owned-nothing claim).
func newInput(members map[string]sarama.ConsumerGroupMemberMetadata, topics map[string][]int32) (*input, error) {
	in := &input{group: &assign.Group{Protocol: assign.Eager}}
	ids := slices.Sorted(maps.Keys(members))
	in.group.Members = make([]assign.Member, len(ids))
	for i, id := range ids {
		in.group.Members[i] = member(id, members[id])
	}
	names := slices.Sorted(maps.Keys(topics))
	in.group.Topics = make([]assign.Topic, len(names))
	for i, name := range names {
		count, distinct, listed := partitionCount(topics[name])
		if listed != nil {
			if count > maxSparseCount(distinct) {
				return nil, fmt.Errorf("saramaassign: topic %q lists %d partitions with ids up to %d: too sparse to assign", name, distinct, count-1)
			}
			if in.listed == nil {
				in.listed = make(map[string]map[int32]bool)
			}
			in.listed[name] = listed
			in.warnings = append(in.warnings, fmt.Sprintf(
				"topic %q: its %d partition ids are not 0..%d; assigned as %d partitions, the %d ids sarama did not list left out of the plan",
				name, distinct, distinct-1, count, count-int64(distinct)))
		}
		in.group.Topics[i] = assign.Topic{Name: name, Partitions: int32(count)}
		in.partitions += distinct
	}
	return in, nil
}

// member converts one member's metadata, reading only the fields of its
// subscription version: owned partitions from v1 (KIP-429), the
// generation from v2 (KIP-792), the rack from v3 (KIP-881).
func member(id string, meta sarama.ConsumerGroupMemberMetadata) assign.Member {
	m := assign.Member{ID: id, Topics: meta.Topics, UserData: meta.UserData, Generation: assign.NoGeneration}
	if meta.Version >= 1 {
		for _, op := range meta.OwnedPartitions {
			if op != nil {
				m.Owned = append(m.Owned, assign.TopicPartitions{Topic: op.Topic, Partitions: op.Partitions})
			}
		}
	}
	if meta.Version >= 2 {
		m.Generation = meta.GenerationID
	}
	if meta.Version >= 3 && meta.RackID != nil {
		m.Rack = *meta.RackID
	}
	return m
}

// partitionCount turns sarama's partition id list into the engine's
// count. sarama lists a topic's partitions as its metadata gives them:
// 0..n-1, sorted. Any other list (a gap, a duplicate, a negative id) is
// read as count = highest id + 1, with listed naming the ids that exist so
// that the plan can leave the others out; negative ids cannot exist and
// are ignored. distinct is the number of distinct valid ids. count is an
// int64 because the highest id + 1 may not fit an int32.
func partitionCount(ids []int32) (count int64, distinct int, listed map[int32]bool) {
	dense := true
	for i, p := range ids {
		if p != int32(i) {
			dense = false
			break
		}
	}
	if dense {
		return int64(len(ids)), len(ids), nil
	}
	listed = make(map[int32]bool, len(ids))
	for _, p := range ids {
		if p >= 0 {
			listed[p] = true
			count = max(count, int64(p)+1)
		}
	}
	if count == int64(len(listed)) {
		return count, len(listed), nil // 0..n-1 in another order or with repeats: dense after all
	}
	return count, len(listed), listed
}

// plan turns every member's partitions into sarama's plan: each member of
// the group is present, partitions sarama did not list are left out, and
// each partition list is clipped to its length, so that appending to one
// (BalanceStrategyPlan.Add) cannot write into another's backing array.
func (in *input) plan(members []assign.MemberAssignment) sarama.BalanceStrategyPlan {
	plan := make(sarama.BalanceStrategyPlan, len(in.group.Members))
	for i := range in.group.Members {
		plan[in.group.Members[i].ID] = map[string][]int32{}
	}
	for i := range members {
		m := &members[i]
		topics := plan[m.ID]
		if topics == nil { // not a member of the group: fromResponse refuses such plans
			continue
		}
		for _, tp := range m.Assigned {
			ps := tp.Partitions
			if listed := in.listed[tp.Topic]; listed != nil {
				ps = slices.DeleteFunc(slices.Clone(ps), func(p int32) bool { return !listed[p] })
			}
			if len(ps) > 0 {
				topics[tp.Topic] = ps[:len(ps):len(ps)]
			}
		}
	}
	return plan
}
