package rollout

import assigndv1 "github.com/assignd/assignd/proto/assignd/v1"

// The bounds of a Machine, for the tests.
const (
	MaxRevisions = maxRevisions
	MaxRules     = maxRules
	MaxReason    = maxReason
	MaxFailures  = maxFailures
)

// AttachFunc is [BusLog.Attach] with a function for the Controller.
func (l *BusLog) AttachFunc(apply func(*assigndv1.RolloutEvent)) { l.attach(apply) }
