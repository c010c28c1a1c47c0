package task

import (
	"cmp"
	"strconv"
)

// TaskID names a task: a subtopology and a partition of its input topics.
type TaskID struct {
	Subtopology string
	Partition   int32
}

func (t TaskID) String() string { return t.Subtopology + "_" + strconv.Itoa(int(t.Partition)) }

func compareTasks(a, b TaskID) int {
	return cmp.Or(cmp.Compare(a.Subtopology, b.Subtopology), cmp.Compare(a.Partition, b.Partition))
}

// Subtopology is one subtopology of the application's topology.
type Subtopology struct {
	// ID is the subtopology's id, as the broker's TopologyDescriber gives
	// it ("0", "1", ...).
	ID string
	// Partitions is the number of its tasks: the largest partition count
	// of its input topics.
	Partitions int32
	// Stateful subtopologies have state stores, so their tasks get standby
	// and warm-up replicas; stateless tasks move freely.
	Stateful bool
}

// Member is one member of the group: a stream thread of a process.
type Member struct {
	ID string
	// Process is the id of the KafkaStreams instance the member belongs
	// to. Its members share the process's state directory.
	Process string
	// Rack is the member's rack; it counts as the tag "rack" when
	// [Group].RackTags names it.
	Rack string
	// Tags are the process's client tags (client.tag.*).
	Tags map[string]string

	// The member's current tasks. Tasks the topology no longer has are
	// ignored.
	Active, Standby, Warmup []TaskID

	// Lags is how far the member's copy of a task's state is behind its
	// changelog, for the tasks whose lag the member reported; a task
	// absent here has an unknown lag. A process's lag on a task is the
	// least of its members'.
	Lags map[TaskID]int64
}

// Group is the input of one assignment.
type Group struct {
	Members       []Member
	Subtopologies []Subtopology
	// NumStandbys is the number of standby replicas of each stateful task
	// (num.standby.replicas).
	NumStandbys int
	// RackTags are the client tag keys across whose values standbys spread
	// (rack.aware.assignment.tags).
	RackTags []string
	// NumWarmups bounds the warm-up replicas of the group
	// (num.warmup.replicas); 0: actives move at once, without warming up.
	// Set it only when members report lags: a process whose lag is unknown
	// is never caught up, so the actives it should take would wait for it
	// for good.
	NumWarmups int
	// AcceptableLag is the largest lag at which a process counts as caught
	// up on a task (acceptable.recovery.lag).
	AcceptableLag int64
}

// Assignment is one member's tasks, each list sorted.
type Assignment struct {
	Member                  string
	Active, Standby, Warmup []TaskID
}

// Kind says which replica of a task a [Move] is about.
type Kind uint8

const (
	KindActive Kind = iota
	KindStandby
)

func (k Kind) String() string {
	if k == KindStandby {
		return "standby"
	}
	return "active"
}

// Move is one replica of a task that changes member, or (with an empty
// From or To) appears or disappears.
type Move struct {
	Task     TaskID
	Kind     Kind
	From, To string
	Reason   Reason
}

// Result is the plan: every member's tasks, in member id order.
type Result struct {
	Assignor    string // name@version
	Assignments []Assignment
	// Moves lists every active that changed member, every standby that
	// left or joined a member, and every active held back for a warm-up,
	// sorted by task, then kind.
	Moves []Move
	// FollowupRequired is set when warm-ups were placed: the group should
	// rebalance again once they have caught up (KIP-441's probing
	// rebalance), when the active can move.
	FollowupRequired bool
	// Warnings say what the plan could not do, e.g. fewer standbys than
	// asked for because the group has too few processes.
	Warnings []string
}
