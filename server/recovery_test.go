package server_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

// TestPanicBecomesInternal injects an assignor that panics once: the call
// fails with INTERNAL and no internals, the panic is logged with its stack,
// and the next call is served normally.
func TestPanicBecomesInternal(t *testing.T) {
	var calls atomic.Int32
	run := func(_ context.Context, a assign.Assignor, g *assign.Group, opts ...assign.Option) (*assign.Result, error) {
		if calls.Add(1) == 1 {
			panic("secret engine state")
		}
		return assign.Run(a, g, opts...)
	}
	ts := startServer(t, nil, server.WithRunFunc(run))
	req := &assigndv1.AssignRequest{ProtocolName: "range", Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 2}},
		Members: []*assigndv1.Member{{MemberId: "m1", Topics: []string{"a"}}}}

	_, err := ts.client.Assign(callCtx(t), req)
	code, _, info := statusDetails(t, err)
	if code != codes.Internal || info.GetReason() != assigndv1.ErrorReason_ERROR_REASON_INTERNAL.String() {
		t.Fatalf("got %v, want INTERNAL with reason ERROR_REASON_INTERNAL", err)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("the panic value leaked to the client: %v", err)
	}
	panics := ts.logs.lines(t, "recovered from panic")
	if len(panics) != 1 || !strings.Contains(panics[0]["stack"].(string), "server_test") {
		t.Errorf("want one logged panic with a stack, got %v", panics)
	}

	resp, err := ts.client.Assign(callCtx(t), req)
	if err != nil {
		t.Fatalf("the call after the panic failed: %v", err)
	}
	if got := resp.GetAssignments()[0].GetPartitions(); len(got) != 1 || len(got[0].GetPartitions()) != 2 {
		t.Errorf("after the panic got %v", resp)
	}
}
