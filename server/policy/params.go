package policy

import (
	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/selection"
)

// Params are the tuning knobs a rule passes to its assignor, resolved to
// concrete values (absent fields take the defaults below).
type Params struct {
	// RackAware turns KIP-881 rack-aware assignment on or off
	// (params.rack_aware). Default: true.
	RackAware bool
	// MaxMovesPerRebalance caps how many partitions one rebalance takes
	// from their live owners, so a large reshuffle spreads over several
	// rebalances (params.max_moves_per_rebalance). Default: 0, no cap.
	MaxMovesPerRebalance int
	// Freeze keeps every partition with its live owner and only places
	// partitions nobody owns, for incidents (params.freeze). It takes
	// precedence over MaxMovesPerRebalance. Default: false.
	Freeze bool
	// KeepMisalignedRacks lets an owner keep a partition none of whose
	// replicas is on its rack (params.keep_misaligned_racks). Default:
	// false, as in the Java client: rack-aware groups bring such
	// partitions home where the balance allows (KIP-881), at the cost of a
	// cooperative follow-up.
	KeepMisalignedRacks bool
	// LoadTolerance is how far above the lower bound of the largest
	// member load a load-aware plan may stay, as a fraction
	// (params.load_tolerance). Default: 0.10. Only load-aware assignors
	// (load-sticky@1) read this and the next two.
	LoadTolerance float64
	// LoadHysteresis is how far beyond the tolerance, as a fraction of the
	// bound, load must drift before a load-aware assignor moves anything
	// (params.load_hysteresis). Default: 0.05.
	LoadHysteresis float64
	// MaxCountSkew caps how many partitions a member may hold beyond the
	// even share under a load-aware assignor (params.max_count_skew).
	// Default: 0, the even share itself.
	MaxCountSkew int
	// LoadSource is where partition load comes from when a request
	// carries no weights (params.load_source): "" (plan by counts) or
	// "kafka", the server's Kafka load source (--load-brokers), read in the
	// background. Default: "".
	LoadSource string
}

func resolveParams(s paramsSpec) Params {
	p := Params{RackAware: true, LoadTolerance: assign.DefaultLoadTolerance, LoadHysteresis: assign.DefaultLoadHysteresis}
	if s.RackAware != nil {
		p.RackAware = *s.RackAware
	}
	if s.MaxMoves != nil {
		p.MaxMovesPerRebalance = *s.MaxMoves
	}
	if s.Freeze != nil {
		p.Freeze = *s.Freeze
	}
	if s.KeepMisalignedRacks != nil {
		p.KeepMisalignedRacks = *s.KeepMisalignedRacks
	}
	if s.LoadTolerance != nil {
		p.LoadTolerance = *s.LoadTolerance
	}
	if s.LoadHysteresis != nil {
		p.LoadHysteresis = *s.LoadHysteresis
	}
	if s.MaxCountSkew != nil {
		p.MaxCountSkew = *s.MaxCountSkew
	}
	p.LoadSource = s.LoadSource
	return p
}

// options converts the parameters to engine options ([selection.PolicyParams.Options]).
func (p Params) options() []assign.Option { return selection.PolicyParams(p).Options() }

// String formats the parameters as they are written in a policy file.
func (p Params) String() string { return selection.PolicyParams(p).String() }
