package assign

// NameLoadSticky is the protocol name of [LoadSticky]. Consumers keep
// announcing "cooperative-sticky": a policy rule runs "load-sticky@1"
// behind that name (the wire format and the rebalance protocols are the
// same).
const NameLoadSticky = "load-sticky"

// LoadSticky returns the load-aware cooperative-sticky assignor
// ("load-sticky"@1). It reads ownership as cooperative-sticky does, runs
// COOPERATIVE and EAGER under the same KIP-429 post-pass, and, given
// partition weights ([Group.Weights]), balances the members' loads instead
// of their partition counts:
//
//   - every partition stays with its owner while the most loaded member
//     carries no more than the lower bound plus the tolerance and the
//     hysteresis ([WithLoadTolerance], [WithLoadHysteresis]), so a steady
//     group with steady load moves nothing, rebalance after rebalance;
//   - partitions nobody owns go, heaviest first, to the least loaded
//     subscriber (rack-local first, KIP-881);
//   - past the hysteresis, the most loaded member gives partitions to the
//     least loaded subscribers, choosing each time the partition that
//     brings it within the tolerance in one move if one does, until it is
//     within the tolerance or no single move lowers it;
//   - no member holds more than the even share plus [WithMaxCountSkew]
//     partitions, where a subscriber under that cap exists;
//   - at most [WithMaxMoves] partitions leave their owners per round.
//
// Without weights it plans by counts, exactly as cooperative-sticky@1.
// The cost is O(P log P) for P partitions plus O(k) per moved partition
// for a member of k partitions.
func LoadSticky() Assignor { return loadStickyAssignor{} }

// loadStickyAssignor is [LoadSticky]. It is cooperative-sticky for
// everything but the plan.
type loadStickyAssignor struct{ cooperativeStickyAssignor }

func (loadStickyAssignor) Name() string { return NameLoadSticky }
func (loadStickyAssignor) Version() int { return 1 }

func (loadStickyAssignor) plan(st *state, target []memberIdx) {
	if st.weight == nil {
		stickyPlan(st, target, false)
		return
	}
	planLoad(st, target)
}

func (loadStickyAssignor) plansWithWeights() {}

// loadAware marks an assignor that plans with [Group.Weights]; Run then
// reports the plan's [LoadStats].
type loadAware interface{ plansWithWeights() }
