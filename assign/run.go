package assign

// Run validates g, computes a's plan and, under COOPERATIVE, applies the
// KIP-429 post-pass (not under [WithTarget]). Errors wrap ErrInvalidGroup or ErrUnsupportedProtocol
// and are *InputError values naming the member and field at fault; a run
// stopped by its context (see [WithContext]) returns an error wrapping
// [ErrStopped], unless [WithBestEffort] is on.
//
// Run keeps no state between calls and does not modify g; the Result may
// share topic-name strings and user-data slices with g.
func Run(a Assignor, g *Group, opts ...Option) (res *Result, err error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt.apply(&o)
	}
	if !o.bestEffort {
		if err := o.stopErr(); err != nil {
			return nil, err
		}
		// A poll that finds the context done unwinds the run (stop.go).
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(stopSignal); !ok {
					panic(p)
				}
				res, err = nil, o.stopErr()
			}
		}()
	}
	st, err := newState(a, g, o)
	if err != nil {
		return nil, err
	}
	target := filledAs[memberIdx](&st.ints, st.numPartitions(), -1)
	st.stop.phase = "plan"
	if len(st.members) > 0 {
		a.plan(st, target)
	}
	st.stop.phase = "limits"
	if o.freeze {
		st.freeze(target)
	}
	if o.maxMoves > 0 {
		st.capMoves(target, o.maxMoves)
	}
	st.stop.phase = "stats"
	var why ReasonCounts
	moved, imbalance := st.planStats(target, &why)
	var load *LoadStats
	if _, ok := a.(loadAware); ok && st.weight != nil {
		load = st.loadStats(target)
	}
	var pending []int32
	if st.protocol == Cooperative && !o.target {
		st.stop.phase = "cooperative"
		pending = st.cooperativeAdjust(target)
	}
	if st.stop.cut || st.workLimitCut {
		pending = st.cutShort(target, pending, &why)
	}
	st.stop.phase = "result"
	res = st.result(a, target, pending, moved, imbalance, &why)
	res.Load = load
	return res, nil
}
