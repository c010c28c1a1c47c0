package policy

import (
	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/selection"
)

// resolveParams gives the tuning knobs a rule passes to its assignor
// concrete values: absent fields take the defaults documented on
// [selection.PolicyParams], the one list of them.
func resolveParams(s paramsSpec) selection.PolicyParams {
	p := selection.PolicyParams{RackAware: true, LoadTolerance: assign.DefaultLoadTolerance, LoadHysteresis: assign.DefaultLoadHysteresis}
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
	p.LoadCluster = s.LoadCluster
	return p
}
