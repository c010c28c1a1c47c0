package assign

import (
	"slices"

	"github.com/assignd/assignd/assign/internal/versioned"
)

// Assignor computes a target assignment. The set of assignors is closed:
// every implementation lives in this package, so that all of them go through
// the same validation and the same KIP-429 post-pass in Run.
type Assignor interface {
	// Name is the protocol name the assignor answers to, e.g.
	// "cooperative-sticky".
	Name() string
	// Version distinguishes behaviourally different implementations of the
	// same name; older versions stay runnable so a rollback is a policy edit.
	Version() int
	// Protocols lists the rebalance protocols the assignor supports; the
	// first one is its default.
	Protocols() []RebalanceProtocol

	// protocols is Protocols without a copy, for the hot path; callers
	// must not modify it.
	protocols() []RebalanceProtocol

	// memberData returns the partitions the member previously had and the
	// generation they belong to, by the assignor's own rule (owned
	// partitions for cooperative-sticky, user data for sticky).
	// readable is false when the member's user data had to be read and
	// could not be (the member is then treated as having no history).
	memberData(m *Member) (owned []TopicPartitions, generation int32, readable bool)
	// plan fills target[p] with the dense index of the member that should
	// own global partition p, or -1 to leave it unassigned.
	plan(st *state, target []memberIdx)
}

// Supports reports whether a runs the given protocol.
func Supports(a Assignor, p RebalanceProtocol) bool {
	for _, q := range a.protocols() {
		if q == p {
			return true
		}
	}
	return false
}

var (
	eagerOnly        = []RebalanceProtocol{Eager}
	cooperativeFirst = []RebalanceProtocol{Cooperative, Eager}
)

// eagerProtocols gives an assignor that runs EAGER only its Protocols,
// cooperativeProtocols one that runs COOPERATIVE first, and EAGER too.
type (
	eagerProtocols       struct{}
	cooperativeProtocols struct{}
)

func (eagerProtocols) Protocols() []RebalanceProtocol       { return slices.Clone(eagerOnly) }
func (eagerProtocols) protocols() []RebalanceProtocol       { return eagerOnly }
func (cooperativeProtocols) Protocols() []RebalanceProtocol { return slices.Clone(cooperativeFirst) }
func (cooperativeProtocols) protocols() []RebalanceProtocol { return cooperativeFirst }

// ownedHistory gives an assignor the memberData that takes a member's
// owned partitions and generation as they are.
type ownedHistory struct{}

func (ownedHistory) memberData(m *Member) ([]TopicPartitions, int32, bool) {
	return m.Owned, m.Generation, true
}

// Ref names an assignor and version, as "cooperative-sticky@2".
func Ref(a Assignor) string { return versioned.Ref(a) }
