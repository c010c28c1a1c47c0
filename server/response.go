package server

import (
	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/request"
)

// response converts the engine's result for the call's header (see
// [apiconv.Response]), with its load fields ([apiconv.LoadToAPI]): the
// weight source, and the load in unit. It lists at most the moves the
// header asks for (the engine may list more, for the call's Decision).
func response(r *assign.Result, policy string, versions map[string]int16, h request.Header, unit string, fromKafka bool) *assigndv1.AssignResponse {
	planned := r
	if len(r.Moves) > h.MoveDetail {
		cut := *r
		cut.Moves = r.Moves[:h.MoveDetail]
		planned = &cut
	}
	out := apiconv.Response(planned, policy, versions, h.FullView)
	source := assigndv1.WeightSource_WEIGHT_SOURCE_REQUEST
	if fromKafka {
		source, unit = assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA, "records/s"
	}
	apiconv.LoadToAPI(out, r, unit, source)
	return out
}

// assignorInfo describes a runnable assignor for ListAssignors.
func assignorInfo(a assign.Assignor) *assigndv1.AssignorInfo { return apiconv.AssignorInfo(a) }
