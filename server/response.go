package server

import (
	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// response converts the engine's result; see [apiconv.Response]. It lists
// at most moves of the result's moves (the engine may list more, for the
// call's Decision).
func response(r *assign.Result, policy string, versions map[string]int16, decoded bool, moves int) *assigndv1.AssignResponse {
	if len(r.Moves) > moves {
		cut := *r
		cut.Moves = r.Moves[:moves]
		r = &cut
	}
	return apiconv.Response(r, policy, versions, decoded)
}

// assignorInfo describes a runnable assignor for ListAssignors.
func assignorInfo(a assign.Assignor) *assigndv1.AssignorInfo { return apiconv.AssignorInfo(a) }

// loadFields sets the response's weight source, snapshot and load; see
// [apiconv.LoadToAPI].
func loadFields(out *assigndv1.AssignResponse, r *assign.Result, unit string, fromKafka bool) {
	source := assigndv1.WeightSource_WEIGHT_SOURCE_REQUEST
	if fromKafka {
		source, unit = assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA, "records/s"
	}
	apiconv.LoadToAPI(out, r, unit, source)
}
