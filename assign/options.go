package assign

import "context"

// Option tunes one Run. Options are sealed: only this package defines them.
type Option interface{ apply(*options) }

type options struct {
	rackAware  bool
	maxMoves   int
	freeze     bool
	ctx        context.Context
	bestEffort bool
	load       loadOptions
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
