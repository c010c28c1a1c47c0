package assign

import "context"

// Option tunes one Run. Options are sealed: only this package defines them.
type Option interface{ apply(*options) }

type options struct {
	rackAware bool
	// keepMisaligned: see WithKeepMisalignedRacks.
	keepMisaligned bool
	maxMoves       int
	freeze         bool
	ctx            context.Context
	bestEffort     bool
	moveDetail     int
	target         bool // [WithTarget]
	load           loadOptions
}

func defaultOptions() options {
	return options{rackAware: true, load: defaultLoadOptions()}
}

type optionFunc func(*options)

func (f optionFunc) apply(o *options) { f(o) }

// WithRackAware turns KIP-881 rack-aware assignment on or off. Default: on;
// it only takes effect when members report racks and partitions have replica
// racks that are not everywhere the same.
func WithRackAware(on bool) Option { return optionFunc(func(o *options) { o.rackAware = on }) }

// WithKeepMisalignedRacks, when on, lets an owner keep a partition of a
// topic it still subscribes to even when none of the partition's replicas
// is on its rack. Default: off, as in the Java client: in rack-aware
// groups (KIP-881) the sticky assignors give such a partition up when a
// member on a replica's rack can take it without unbalancing the plan,
// which under COOPERATIVE costs one follow-up rebalance. Turning it on
// trades that churn for cross-rack fetch traffic.
func WithKeepMisalignedRacks(on bool) Option {
	return optionFunc(func(o *options) { o.keepMisaligned = on })
}

// WithMaxMoves caps how many partitions one round takes away from their
// live previous owners, so a large reshuffle spreads over several
// rebalances. Partitions nobody owns are not counted. Default: 0, no cap.
func WithMaxMoves(n int) Option { return optionFunc(func(o *options) { o.maxMoves = n }) }

// WithFreeze keeps every partition with its live previous owner (if the
// owner still subscribes to its topic) and only places partitions nobody
// owns; for incidents. Default: off.
func WithFreeze(on bool) Option { return optionFunc(func(o *options) { o.freeze = on }) }

// WithContext stops the run promptly once ctx is done: its deadline passed,
// its caller went away or the process is shutting down. A stopped run
// returns an error wrapping both [ErrStopped] and context.Cause(ctx), unless
// [WithBestEffort] is on. Default: none, the run always completes.
func WithContext(ctx context.Context) Option {
	return optionFunc(func(o *options) { o.ctx = ctx })
}

// WithBestEffort makes a run stopped by its context return the valid plan
// it has instead of an error: placement always completes (every partition
// gets exactly one subscribed member; under COOPERATIVE the KIP-429
// post-pass runs as always), later refinements (balance repair, per-topic
// trimming, rack matching in range) are skipped and the result carries a
// warning. Since the plan may be uneven, a COOPERATIVE result with nothing
// pending withholds one partition that a loaded member kept, so that the
// member revokes it and the group rejoins by itself (FollowupRequired);
// EAGER groups cannot be asked for a follow-up. A plan that was complete
// when the context ended is returned unchanged, without a warning. For
// fallbacks that must answer within a bound. Default: off.
func WithBestEffort(on bool) Option { return optionFunc(func(o *options) { o.bestEffort = on }) }

// WithMoveDetail lists in Result.Moves, in (topic, partition) order, up to
// n of the partitions that change owner, are withheld or are held back,
// each with its [MoveReason]. The counts by reason (Stats.Reasons) are
// always complete; the list costs a pass over the partitions and is for
// callers that show it. Default: 0, no list.
func WithMoveDetail(n int) Option { return optionFunc(func(o *options) { o.moveDetail = max(n, 0) }) }
