package selection

import (
	"context"
	"time"

	"github.com/assignd/assignd/assign/task"
)

// GroupType is the kind of Kafka group a choice is for: a rule of the
// policy may match on it (match.group_types), because each kind runs a
// different kind of assignor.
type GroupType uint8

const (
	// GroupConsumer is a consumer group (classic or KIP-848), served by
	// Assign with a partition assignor. The zero value.
	GroupConsumer GroupType = iota
	// GroupStreams is a Kafka Streams group (KIP-1071), served by
	// AssignTasks with a task assignor.
	GroupStreams
)

// String is the group type as a policy file writes it.
func (t GroupType) String() string {
	if t == GroupStreams {
		return "streams"
	}
	return "consumer"
}

// TaskSelector chooses the task assignor for one Kafka Streams group, as
// [Selector] chooses the partition assignor of a consumer group: the
// service asks it on every AssignTasks call. It is a separate interface so
// that a Selector written before streams groups keeps compiling; the
// server serves a Selector that does not implement it with
// [Default]'s choice (sticky@1). Implementations must be safe for
// concurrent use, fast and deterministic, as Selector's.
type TaskSelector interface {
	// SelectTasks chooses for q, whose GroupID is the caller's label for
	// the group (a broker's specs carry no group id) and whose
	// ProtocolName and Protocol are empty. Its errors are Select's:
	// wrapping ErrCallerNotAllowed refuses the caller, any other is
	// INTERNAL.
	SelectTasks(ctx context.Context, q Query) (TaskSelection, error)
}

// TaskSelection is a TaskSelector's answer.
type TaskSelection struct {
	// Assignor runs the assignment. Required.
	Assignor task.Assignor
	// Policy names the rule and revision that chose the assignor, as
	// "rule/revision" (AssignTasksResponse.policy).
	Policy string
	// Binding, RolloutStep and RolloutStarted are as in [Selection].
	Binding        string
	RolloutStep    int
	RolloutStarted time.Time
}

// SelectTasks is Default's choice for every streams group: the sticky
// task assignor ([task.Sticky], the broker built-in's name at version 1).
func (s *standardSelector) SelectTasks(context.Context, Query) (TaskSelection, error) {
	return TaskSelection{Assignor: defaultTaskAssignor, Policy: s.policy}, nil
}

// defaultTaskAssignor is the task assignor of the default mapping.
var defaultTaskAssignor = task.Sticky()
