package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/selection"
)

// fakeExplainer answers with a fixed explanation, or an error, and
// records its queries.
type fakeExplainer struct {
	mu      sync.Mutex
	queries []selection.Query
	answer  selection.Explanation
	err     error
}

func (f *fakeExplainer) ExplainPolicy(_ context.Context, q selection.Query) (selection.Explanation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	return f.answer, f.err
}

func (f *fakeExplainer) last() selection.Query {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queries[len(f.queries)-1]
}

// namesError is an ErrUnknownProtocol that lists the known names.
type namesError struct{ names []string }

func (e namesError) Error() string {
	return "unknown protocol name \"x\": try one of " + strings.Join(e.names, ", ")
}
func (e namesError) Unwrap() error           { return selection.ErrUnknownProtocol }
func (e namesError) ProtocolNames() []string { return e.names }

func TestExplainPolicy(t *testing.T) {
	ex := &fakeExplainer{answer: selection.Explanation{
		Policy: "payments-v2/0123456789ab", Rule: "payments-v2", Revision: "0123456789ab", Description: "staged",
		Bucket: 412, Reason: "bucket 412 is below 1000 (rollout.percent 10)", Assignor: "cooperative-sticky@2",
		Protocol: assign.Cooperative,
		Params:   selection.PolicyParams{RackAware: true, MaxMovesPerRebalance: 64, LoadTolerance: 0.2, LoadHysteresis: 0.01, MaxCountSkew: 4},
		Shadow:   &selection.ShadowPolicy{Assignor: "cooperative-sticky@1", Params: selection.PolicyParams{Freeze: true}},
		Skipped:  []selection.SkippedRule{{Rule: "freeze-billing", Reason: "group \"payments-a\" matches none of match.groups"}},
	}}
	ts := startServer(t, nil, server.WithExplainer(ex))
	resp, err := ts.client.ExplainPolicy(callCtx(t), &assigndv1.ExplainPolicyRequest{
		GroupId: "payments-a", ProtocolName: "cooperative-sticky",
		Caller: &assigndv1.CallerIdentity{Subject: "CN=leader-a,O=payments", CommonName: "leader-a"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := &assigndv1.ExplainPolicyResponse{
		Policy: "payments-v2/0123456789ab", Rule: "payments-v2", Revision: "0123456789ab", Description: "staged",
		Bucket: 412, Reason: "bucket 412 is below 1000 (rollout.percent 10)", Assignor: "cooperative-sticky@2",
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
		Params: &assigndv1.PolicyParams{RackAware: true, MaxMovesPerRebalance: 64,
			LoadTolerance: proto.Float64(0.2), LoadHysteresis: proto.Float64(0.01), MaxCountSkew: proto.Int32(4)},
		Shadow: &assigndv1.ShadowPolicy{Assignor: "cooperative-sticky@1", Params: &assigndv1.PolicyParams{Freeze: true,
			LoadTolerance: proto.Float64(0), LoadHysteresis: proto.Float64(0), MaxCountSkew: proto.Int32(0)}},
		Skipped: []*assigndv1.SkippedRule{{Rule: "freeze-billing", Reason: "group \"payments-a\" matches none of match.groups"}},
		Caller:  &assigndv1.CallerIdentity{Subject: "CN=leader-a,O=payments", CommonName: "leader-a"},
	}
	if !proto.Equal(resp, want) {
		t.Errorf("response\n%v\nwant\n%v", resp, want)
	}
	q := ex.last()
	if q.GroupID != "payments-a" || q.ProtocolName != "cooperative-sticky" || q.Protocol != assign.ProtocolUnspecified ||
		q.Caller != (selection.Caller{Subject: "CN=leader-a,O=payments", CommonName: "leader-a"}) {
		t.Errorf("explainer query = %+v", q)
	}

	// Without the override a plaintext caller is nobody; without a shadow
	// none is reported.
	ex.answer.Shadow = nil
	resp, err = ts.client.ExplainPolicy(callCtx(t), &assigndv1.ExplainPolicyRequest{GroupId: "g", ProtocolName: "range"})
	if err != nil {
		t.Fatal(err)
	}
	if q := ex.last(); q.Caller != (selection.Caller{}) || resp.GetShadow() != nil || resp.GetCaller().GetSubject() != "" {
		t.Errorf("query %+v, response %v", q, resp)
	}
	if lines := ts.logs.lines(t, "finished call"); len(lines) != 2 || lines[0]["grpc.method"] != "ExplainPolicy" {
		t.Errorf("want one call log line per ExplainPolicy call, got %v", lines)
	}
}

func TestExplainPolicyErrors(t *testing.T) {
	tests := []struct {
		name   string
		opts   []server.Option
		code   codes.Code
		field  string
		names  string
		reason assigndv1.ErrorReason
	}{
		{"unknown name, names listed", []server.Option{server.WithExplainer(&fakeExplainer{err: namesError{[]string{"range", "sticky"}}})},
			codes.InvalidArgument, "protocol_name", "range,sticky", assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME},
		{"unknown name, wrapped", []server.Option{server.WithExplainer(&fakeExplainer{err: fmt.Errorf("policy: %w", selection.ErrUnknownProtocol)})},
			codes.InvalidArgument, "protocol_name", "", assigndv1.ErrorReason_ERROR_REASON_UNKNOWN_PROTOCOL_NAME},
		{"explainer failure", []server.Option{server.WithExplainer(&fakeExplainer{err: errors.New("policy store password expired")})},
			codes.Internal, "", "", assigndv1.ErrorReason_ERROR_REASON_INTERNAL},
		{"no explainer", nil, codes.Unimplemented, "", "", assigndv1.ErrorReason_ERROR_REASON_UNSPECIFIED},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := startServer(t, nil, tt.opts...)
			_, err := ts.client.ExplainPolicy(callCtx(t), &assigndv1.ExplainPolicyRequest{GroupId: "g", ProtocolName: "x"})
			code, fv, info := statusDetails(t, err)
			if code != tt.code {
				t.Fatalf("code %s (%v), want %s", code, err, tt.code)
			}
			if fv.GetField() != tt.field {
				t.Errorf("field %q, want %q", fv.GetField(), tt.field)
			}
			if got := info.GetMetadata()["protocol_names"]; got != tt.names {
				t.Errorf("protocol_names %q, want %q", got, tt.names)
			}
			if info != nil && info.GetReason() != tt.reason.String() || info == nil && tt.reason != assigndv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
				t.Errorf("ErrorInfo %v, want reason %s", info, tt.reason)
			}
			if strings.Contains(err.Error(), "password") {
				t.Errorf("the error leaks its cause: %v", err)
			}
		})
	}
}

// TestExplainPolicyMutualTLS: without an override the Explainer sees the
// identity the client certificate proves; an empty override stands for an
// unauthenticated leader.
func TestExplainPolicyMutualTLS(t *testing.T) {
	ex := &fakeExplainer{answer: selection.Explanation{Policy: "default/x", Rule: "default", Revision: "x", Assignor: "range@1", Protocol: assign.Eager}}
	ca, dial := startMutualTLS(t, selection.Default(), server.WithExplainer(ex))
	conn := dial(ca.Client(t, "ops", "platform"))
	defer conn.Close()
	client := assigndv1.NewAssignmentServiceClient(conn)

	resp, err := client.ExplainPolicy(callCtx(t), &assigndv1.ExplainPolicyRequest{GroupId: "g", ProtocolName: "range"})
	if err != nil {
		t.Fatal(err)
	}
	if want := (selection.Caller{Subject: "CN=ops,O=platform", CommonName: "ops"}); ex.last().Caller != want || resp.GetCaller().GetCommonName() != "ops" {
		t.Errorf("caller %+v / %v, want %+v", ex.last().Caller, resp.GetCaller(), want)
	}
	if _, err := client.ExplainPolicy(callCtx(t), &assigndv1.ExplainPolicyRequest{GroupId: "g", ProtocolName: "range",
		Caller: &assigndv1.CallerIdentity{}}); err != nil {
		t.Fatal(err)
	}
	if c := ex.last().Caller; c != (selection.Caller{}) {
		t.Errorf("an empty override gave caller %+v", c)
	}
}

// TestUnknownProtocolListsNames: the default selector's refusal lists the
// names it knows in the error details, for clients to offer them.
func TestUnknownProtocolListsNames(t *testing.T) {
	ts := startServer(t, nil)
	_, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{ProtocolName: "uniform"})
	code, fv, info := statusDetails(t, err)
	if code != codes.InvalidArgument || fv.GetField() != "protocol_name" ||
		info.GetMetadata()["protocol_names"] != "cooperative-sticky,range,roundrobin,sticky" {
		t.Errorf("got %v (metadata %v)", status.Convert(err).Message(), info.GetMetadata())
	}
}
