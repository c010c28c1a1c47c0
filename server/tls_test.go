package server_test

import (
	"context"
	"sync"
	"testing"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/selection"
)

// recordingSelector remembers the queries it was asked.
type recordingSelector struct {
	mu      sync.Mutex
	queries []selection.Query
}

func (r *recordingSelector) Select(ctx context.Context, q selection.Query) (selection.Selection, error) {
	r.mu.Lock()
	r.queries = append(r.queries, q)
	r.mu.Unlock()
	return selection.Default().Select(ctx, q)
}

// TestMutualTLSCaller: with mTLS the Selector sees the verified client
// subject; a client without a certificate is refused.
func TestMutualTLSCaller(t *testing.T) {
	sel := &recordingSelector{}
	ca, dial := startMutualTLS(t, sel)

	conn := dial(ca.Client(t, "leader-a", "payments"))
	defer conn.Close()
	req := &assigndv1.AssignRequest{GroupId: "orders", ProtocolName: "range"}
	if _, err := assigndv1.NewAssignmentServiceClient(conn).Assign(callCtx(t), req); err != nil {
		t.Fatal(err)
	}
	sel.mu.Lock()
	q := sel.queries[0]
	sel.mu.Unlock()
	if q.Caller.CommonName != "leader-a" || q.Caller.Subject != "CN=leader-a,O=payments" || q.GroupID != "orders" || q.ProtocolName != "range" {
		t.Errorf("selector query = %+v", q)
	}

	anon := dial()
	defer anon.Close()
	if _, err := assigndv1.NewAssignmentServiceClient(anon).Assign(callCtx(t), req); err == nil {
		t.Error("a client without a certificate was served")
	}
}
