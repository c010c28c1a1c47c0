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
	given(&p.RackAware, s.RackAware)
	given(&p.MaxMovesPerRebalance, s.MaxMoves)
	given(&p.Freeze, s.Freeze)
	given(&p.KeepMisalignedRacks, s.KeepMisalignedRacks)
	given(&p.LoadTolerance, s.LoadTolerance)
	given(&p.LoadHysteresis, s.LoadHysteresis)
	given(&p.MaxCountSkew, s.MaxCountSkew)
	p.LoadSource = s.LoadSource
	p.LoadCluster = s.LoadCluster
	return p
}

// given sets *dst to the value the policy file gives, if it gives one.
func given[T any](dst, v *T) {
	if v != nil {
		*dst = *v
	}
}
