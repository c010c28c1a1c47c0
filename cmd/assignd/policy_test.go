package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/inproc"
	"github.com/assignd/assignd/testbed/policytest"
)

// serveBufconn serves src as assignd wires it (Selector and Explainer) on
// an in-memory listener.
func serveBufconn(t *testing.T, src *policy.Source) assigndv1.AssignmentServiceClient {
	t.Helper()
	srv, err := server.New(src, slog.New(slog.DiscardHandler), server.WithExplainer(src))
	if err != nil {
		t.Fatal(err)
	}
	return assigndv1.NewAssignmentServiceClient(inproc.Dial(t, srv))
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestExplainPolicyOverGRPC explains the example policy through the
// server: every field of the policy's explanation reaches the response.
func TestExplainPolicyOverGRPC(t *testing.T) {
	p, err := policy.Load(filepath.Join("..", "..", "examples", "policy.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	src := policytest.ServePolicy(t, p, policy.WithLogger(slog.New(slog.DiscardHandler)))
	client := serveBufconn(t, src)

	for _, tc := range []struct {
		group, name string
		caller      *assigndv1.CallerIdentity
	}{
		{"payments-ledger", "cooperative-sticky", nil},
		{"billing-eu", "range", nil},
		{"orders", "cooperative-sticky", nil},
		{"analytics-web-etl", "range", &assigndv1.CallerIdentity{CommonName: "analytics-leader"}},
		{"analytics-web-etl", "range", nil},
	} {
		resp, err := client.ExplainPolicy(testCtx(t), &assigndv1.ExplainPolicyRequest{GroupId: tc.group, ProtocolName: tc.name, Caller: tc.caller})
		if err != nil {
			t.Fatalf("%s/%s: %v", tc.group, tc.name, err)
		}
		var caller selection.Caller
		if tc.caller != nil {
			caller = selection.Caller{Subject: tc.caller.GetSubject(), CommonName: tc.caller.GetCommonName()}
		}
		want, err := p.Explain(tc.group, tc.name, caller)
		if err != nil {
			t.Fatal(err)
		}
		got := resp
		if got.GetPolicy() != want.Policy || got.GetRule() != want.Rule || got.GetRevision() != p.Revision() ||
			got.GetDescription() != want.Description || int(got.GetBucket()) != want.Bucket || got.GetReason() != want.Reason ||
			got.GetAssignor() != want.Assignor || int(got.GetRebalanceProtocol()) != int(want.Protocol) ||
			got.GetParams().GetRackAware() != want.Params.RackAware || int(got.GetParams().GetMaxMovesPerRebalance()) != want.Params.MaxMovesPerRebalance ||
			got.GetParams().GetFreeze() != want.Params.Freeze {
			t.Errorf("%s/%s: got %v\nwant %+v", tc.group, tc.name, got, want)
		}
		if (got.GetShadow() == nil) != (want.Shadow == nil) || want.Shadow != nil && got.GetShadow().GetAssignor() != want.Shadow.Assignor {
			t.Errorf("%s/%s: shadow %v, want %+v", tc.group, tc.name, got.GetShadow(), want.Shadow)
		}
		if len(got.GetSkipped()) != len(want.Skipped) {
			t.Fatalf("%s/%s: skipped %v, want %+v", tc.group, tc.name, got.GetSkipped(), want.Skipped)
		}
		for i, s := range want.Skipped {
			if got.GetSkipped()[i].GetRule() != s.Rule || got.GetSkipped()[i].GetReason() != s.Reason {
				t.Errorf("%s/%s: skipped[%d] %v, want %+v", tc.group, tc.name, i, got.GetSkipped()[i], s)
			}
		}
	}

	// Every request the example's rules name lands where the file says.
	if resp, _ := client.ExplainPolicy(testCtx(t), &assigndv1.ExplainPolicyRequest{GroupId: "payments-ledger", ProtocolName: "cooperative-sticky"}); resp.GetRule() != "payments-v2" ||
		resp.GetReason() != "group is in rollout.include" || resp.GetParams().GetMaxMovesPerRebalance() != 64 {
		t.Errorf("payments-ledger: %v", resp)
	}

	// No protocol name: refused, listing the names the policy answers for.
	_, err = client.ExplainPolicy(testCtx(t), &assigndv1.ExplainPolicyRequest{GroupId: "orders"})
	st := status.Convert(err)
	var names string
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			names = info.GetMetadata()["protocol_names"]
		}
	}
	if st.Code() != codes.InvalidArgument || names != strings.Join(p.ProtocolNames(), ",") {
		t.Errorf("empty protocol name: %v, names %q", err, names)
	}

	// ListAssignors lists the same names without a failing call.
	list, err := client.ListAssignors(testCtx(t), &assigndv1.ListAssignorsRequest{})
	if err != nil || strings.Join(list.GetProtocolNames(), ",") != strings.Join(p.ProtocolNames(), ",") {
		t.Errorf("ListAssignors protocol names %q (%v), want %q", list.GetProtocolNames(), err, p.ProtocolNames())
	}
}

// TestReloadOnSignal: SIGHUP reads the file now, whatever the watcher
// would do later; a rejected file keeps the old revision.
func TestReloadOnSignal(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "policy.yaml")
	writeFile(t, path, "version: 1\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The watcher waits an hour after a change: only the signal reloads.
	src, err := policy.Watch(ctx, path, policy.WithDebounce(time.Hour), policy.WithResync(0), policy.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	first := src.Policy().Revision()
	hup := make(chan os.Signal)
	done := make(chan struct{})
	go func() {
		reloadOnSignal(ctx, src, hup, slog.New(slog.DiscardHandler), path)
		close(done)
	}()

	writeFile(t, path, "version: 1\n# a comment is a new revision\n")
	hup <- syscall.SIGHUP
	hup <- syscall.SIGHUP // the first has been handled once this is received
	second := src.Policy().Revision()
	if second == first {
		t.Fatal("SIGHUP did not reload the changed file")
	}
	writeFile(t, path, "version: 1\nrules: [{name: x, assignor: nope@9}]\n")
	hup <- syscall.SIGHUP
	hup <- syscall.SIGHUP
	if got := src.Policy().Revision(); got != second {
		t.Errorf("an invalid file replaced revision %s with %s", second, got)
	}
	cancel()
	<-done
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
