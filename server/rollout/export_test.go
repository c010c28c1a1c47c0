package rollout

// The bounds of a Machine, for the tests.
const (
	MaxRevisions = maxRevisions
	MaxRules     = maxRules
	MaxReason    = maxReason
	MaxFailures  = maxFailures
)
