package assign

// Run validates g, computes a's plan and, under COOPERATIVE, applies the
// KIP-429 post-pass. Errors wrap ErrInvalidGroup or ErrUnsupportedProtocol
// and are *InputError values naming the member and field at fault.
//
// Run keeps no state between calls and does not modify g; the Result may
// share topic-name strings and user-data slices with g.
func Run(a Assignor, g *Group, opts ...Option) (*Result, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	if err := o.stopErr(); err != nil {
		return nil, err
	}
	st, err := newState(a, g, o)
	if err != nil {
		return nil, err
	}
	if err := o.stopErr(); err != nil {
		return nil, err
	}
	target := st.ints.filled(st.numPartitions(), -1)
	if len(st.members) > 0 {
		a.plan(st, target)
	}
	if err := o.stopErr(); err != nil && !o.bestEffort {
		return nil, err
	}
	if o.freeze {
		st.freeze(target)
	}
	if o.maxMoves > 0 {
		st.capMoves(target, o.maxMoves)
	}
	moved, imbalance := st.planStats(target)
	var pending []int32
	if st.protocol == Cooperative {
		pending = st.cooperativeAdjust(target)
	}
	return st.result(a, target, pending, moved, imbalance), nil
}
