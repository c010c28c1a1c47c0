package share

import "github.com/assignd/assignd/assign"

// Topic is the broker's metadata for one subscribed topic.
type Topic struct {
	Name string
	// Partitions is the partition count: partitions 0..Partitions-1 exist.
	Partitions int32
	// Unassignable lists partitions that exist but the group cannot be
	// given yet: KIP-932's share-partition state is initialised
	// asynchronously, and the broker's GroupSpec.isPartitionAssignable
	// is false until it is. They get no member and count for no slot.
	Unassignable []int32
}

// Member is one member of the share group.
type Member struct {
	ID string
	// Topics are the topics the member subscribes to.
	Topics []string
	// Current is the member's current target assignment, as the broker
	// keeps it between epochs. Pairs of topics the member no longer
	// subscribes to, or of partitions that are gone or unassignable, are
	// dropped; a pair listed twice counts once.
	Current []assign.TopicPartitions
}

// Group is the input of one assignment.
type Group struct {
	Members []Member
	// Topics is the metadata of the subscribed topics. A subscribed topic
	// missing from it gets no members (and a warning).
	Topics []Topic
}

// Assignment is one member's partitions, topics sorted by name and
// partitions ascending.
type Assignment struct {
	Member     string
	Partitions []assign.TopicPartitions
}

// Stats counts the plan's (partition, member) pairs against the members'
// current assignments.
type Stats struct {
	// Pairs is the number of pairs in the plan: the slots of every topic.
	Pairs int
	// Kept pairs were in the member's current assignment.
	Kept int
	// Added pairs were not.
	Added int
	// Removed pairs were in a member's current assignment and are not in
	// the plan, for whatever reason (balance, an unsubscribed topic, a
	// partition that is gone).
	Removed int
}

// Result is the plan: every member's partitions, in member id order.
type Result struct {
	Assignor    string // name@version
	Assignments []Assignment
	Stats       Stats
	// Warnings say what input was ignored, e.g. a subscribed topic the
	// metadata lacks.
	Warnings []string
}
