package server_test

import (
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/testbed/policytest"
)

// TestCallerBinding: with mTLS and a policy that binds the payments
// groups to their leader, a foreign caller is refused with
// PERMISSION_DENIED naming the group and the caller, and leaves no
// record; the bound leader is served and its record names the binding; an
// unbound group is open to anyone.
func TestCallerBinding(t *testing.T) {
	src := policytest.Serve(t, `version: 1
bindings:
  - name: payments
    group_prefixes: [payments-]
    callers: [{common_name: payments-leader}]
`)
	h, _ := history.New()
	ca, dial := startMutualTLS(t, src, server.WithHistory(h))
	client := func(cn, org string) assigndv1.AssignmentServiceClient {
		conn := dial(ca.Client(t, cn, org))
		t.Cleanup(func() { conn.Close() })
		return assigndv1.NewAssignmentServiceClient(conn)
	}
	owner, foreign := client("payments-leader", "payments"), client("billing-leader", "billing")

	_, err := foreign.Assign(callCtx(t), historyRequest("payments-eu", 1, "cooperative-sticky"))
	st := status.Convert(err)
	if st.Code() != codes.PermissionDenied {
		t.Fatalf("foreign caller: %v, want PERMISSION_DENIED", err)
	}
	for _, want := range []string{`group "payments-eu"`, `caller "CN=billing-leader,O=billing"`, `binding "payments"`} {
		if !strings.Contains(st.Message(), want) {
			t.Errorf("message %q does not say %s", st.Message(), want)
		}
	}
	var reason string
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			reason = info.GetReason()
		}
	}
	if reason != assigndv1.ErrorReason_ERROR_REASON_CALLER_NOT_ALLOWED.String() {
		t.Errorf("ErrorInfo reason %q, want CALLER_NOT_ALLOWED", reason)
	}

	if _, err := owner.Assign(callCtx(t), historyRequest("payments-eu", 2, "cooperative-sticky")); err != nil {
		t.Fatalf("the bound caller: %v", err)
	}
	if _, err := foreign.Assign(callCtx(t), historyRequest("billing-eu", 1, "range")); err != nil {
		t.Fatalf("an unbound group: %v", err)
	}
	var hc assigndv1.GroupHistoryServiceClient
	{
		conn := dial(ca.Client(t, "ops", "platform"))
		defer conn.Close()
		hc = assigndv1.NewGroupHistoryServiceClient(conn)
	}
	ds := waitGroup(t, hc, "payments-eu", 1).GetDecisions()
	if len(ds) != 1 || ds[0].GetGenerationId() != 2 || ds[0].GetCallerBinding() != "payments" || ds[0].GetCaller().GetCommonName() != "payments-leader" {
		t.Errorf("payments-eu records %v; want only the bound leader's generation 2, naming the binding", ds)
	}
	if d := waitGroup(t, hc, "billing-eu", 1).GetDecisions()[0]; d.GetCallerBinding() != "" || d.GetCaller().GetCommonName() != "billing-leader" {
		t.Errorf("billing-eu record: binding %q, caller %v; want no binding and the billing leader", d.GetCallerBinding(), d.GetCaller())
	}
}

// Without TLS a bound group cannot be requested: nobody is
// authenticated, and the record of an unbound group has no caller.
func TestCallerBindingWithoutTLS(t *testing.T) {
	p, err := policy.Parse("bound.yaml", []byte("version: 1\nbindings:\n  - {name: payments, group_prefixes: [payments-], callers: [{common_name: payments-leader}]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	src, _ := policy.NewSource(p)
	defer src.Close()
	h, _ := history.New()
	ts := startServer(t, src, server.WithHistory(h))
	_, err = ts.client.Assign(callCtx(t), historyRequest("payments-eu", 1, "range"))
	if st := status.Convert(err); st.Code() != codes.PermissionDenied || !strings.Contains(st.Message(), "unauthenticated") {
		t.Errorf("unauthenticated call to a bound group: %v, want PERMISSION_DENIED saying unauthenticated", err)
	}
	if _, err := ts.client.Assign(callCtx(t), historyRequest("orders", 1, "range")); err != nil {
		t.Fatal(err)
	}
	if d := waitGroup(t, assigndv1.NewGroupHistoryServiceClient(ts.conn), "orders", 1).GetDecisions()[0]; d.GetCaller() != nil {
		t.Errorf("caller %v without TLS; want none (unauthenticated)", d.GetCaller())
	}
}
