package task

// Reason says why a replica of a task changes member, or why an active
// stays although the balance would move it. Numbers are stable.
type Reason uint8

const (
	// ReasonNone: the replica stays.
	ReasonNone Reason = iota
	// ReasonNoOwner: no member of the group held the active (a new task, a
	// first assignment, or an owner that left), or a standby is added.
	ReasonNoOwner
	// ReasonBalance: the owner (of an active, or of a standby) holds more
	// than its share.
	ReasonBalance
	// ReasonWarmup: the active stays with its caught-up owner although the
	// balance would move it, because the destination is not caught up; the
	// destination warms up first (KIP-441).
	ReasonWarmup
	// ReasonWaiting: as ReasonWarmup, but the group's warm-ups are all in
	// use: the active stays with its owner, and the destination warms it
	// up in a later round.
	ReasonWaiting
	// ReasonActiveProcess: a standby leaves a process that now runs the
	// task's active, or that holds another replica of it.
	ReasonActiveProcess
	// ReasonRackTags: a standby leaves a member whose tag values another
	// replica of the task already has, for one where they differ.
	ReasonRackTags
	// ReasonNotNeeded: a standby the group no longer wants (fewer standbys,
	// or a stateless subtopology).
	ReasonNotNeeded

	numReasons
)

var reasonNames = [numReasons]string{
	ReasonNone:          "none",
	ReasonNoOwner:       "no_owner",
	ReasonBalance:       "balance",
	ReasonWarmup:        "warmup",
	ReasonWaiting:       "waiting",
	ReasonActiveProcess: "active_process",
	ReasonRackTags:      "rack_tags",
	ReasonNotNeeded:     "not_needed",
}

func (r Reason) String() string {
	if r < numReasons {
		return reasonNames[r]
	}
	return "unknown"
}
