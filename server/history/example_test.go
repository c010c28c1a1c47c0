package history_test

import (
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
)

// A later tool (a policy preview) replays each group's latest input.
func ExampleStore_LatestInputs() {
	s, _ := history.New()
	req := &assigndv1.AssignRequest{GroupId: "payments", GenerationId: 7, ProtocolName: "cooperative-sticky"}
	input, _ := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	s.RecordInput(&assigndv1.Decision{GroupId: "payments", GenerationId: 7, Time: timestamppb.Now()}, input)

	s.LatestInputs(func(group string, req *assigndv1.AssignRequest) bool {
		fmt.Println(group, req.GetGenerationId(), req.GetProtocolName())
		return true
	})
	// Output: payments 7 cooperative-sticky
}
