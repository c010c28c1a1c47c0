package replay

import (
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/selection"
)

// ParamsToAPI is a rule's assignor parameters as the API reports them, in
// ExplainPolicy and in the replays.
func ParamsToAPI(p selection.PolicyParams) *assigndv1.PolicyParams {
	return &assigndv1.PolicyParams{RackAware: p.RackAware, MaxMovesPerRebalance: int32(p.MaxMovesPerRebalance), Freeze: p.Freeze,
		KeepMisalignedRacks: p.KeepMisalignedRacks,
		LoadTolerance:       &p.LoadTolerance, LoadHysteresis: &p.LoadHysteresis, MaxCountSkew: proto.Int32(int32(p.MaxCountSkew)),
		LoadSource: p.LoadSource, LoadCluster: p.LoadCluster}
}
