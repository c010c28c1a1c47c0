package server

import (
	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// response converts the engine's result; see [apiconv.Response].
func response(r *assign.Result, policy string, versions map[string]int16, decoded bool) *assigndv1.AssignResponse {
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
