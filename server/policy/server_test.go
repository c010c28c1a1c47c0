package policy_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/testbed/inproc"
	"github.com/assignd/assignd/testbed/policytest"
)

// serve runs a real assignd server with src as its Selector on an
// in-memory listener.
func serve(t *testing.T, src *policy.Source) assigndv1.AssignmentServiceClient {
	t.Helper()
	srv, err := server.New(src, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return assigndv1.NewAssignmentServiceClient(inproc.Dial(t, srv))
}

// The policy plugs into the server: responses name the rule and revision,
// the rule's parameters shape the assignment, shadows run, and unknown
// names are the client's error.
func TestServerUsesPolicy(t *testing.T) {
	m := newMeter(t)
	p := mustParse(t, policytest.CappedShadowed)
	src, err := policy.NewSource(p, policy.WithMeterProvider(m.provider), policy.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	client := serve(t, src)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	req := &assigndv1.AssignRequest{
		GroupId: "orders", GenerationId: 5, ProtocolName: "cooperative-sticky",
		RebalanceProtocol: assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE,
		Topics:            []*assigndv1.Topic{{Name: "t", PartitionCount: 12}},
		Members: []*assigndv1.Member{
			{MemberId: "a", Topics: []string{"t"}, OwnedPartitions: []*assigndv1.TopicPartitions{
				{Topic: "t", Partitions: []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}}, Generation: ptr(int32(4))},
			{MemberId: "b", Topics: []string{"t"}},
			{MemberId: "c", Topics: []string{"t"}},
		},
	}
	resp, err := client.Assign(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if want := "capped/" + p.Revision(); resp.GetPolicy() != want {
		t.Errorf("policy = %q, want %q", resp.GetPolicy(), want)
	}
	if len(resp.GetPending()) != 1 || len(resp.GetPending()[0].GetPartitions()) != 1 || !resp.GetFollowupRequired() {
		t.Errorf("pending %v: the rule's cap of one move did not apply", resp.GetPending())
	}
	if err := src.Close(); err != nil { // waits for the shadow
		t.Fatal(err)
	}
	if n, _ := m.value(t, "assignd.policy.shadow.runs", map[string]string{"outcome": policy.ShadowCompared}); n != 1 {
		t.Errorf("shadow runs = %d, want 1", n)
	}
	if n, _ := m.value(t, "assignd.policy.shadow.moved", map[string]string{"side": "shadow"}); n != 8 {
		t.Errorf("shadow moved = %d, want 8", n)
	}

	req.ProtocolName = "nope"
	_, err = client.Assign(ctx, req)
	if status.Code(err) != codes.InvalidArgument {
		t.Errorf("unknown protocol name: %v, want INVALID_ARGUMENT", err)
	}
	// The refusal lists the names the policy answers for, for clients.
	var names string
	for _, d := range status.Convert(err).Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			names = info.GetMetadata()["protocol_names"]
		}
	}
	if want := strings.Join(p.ProtocolNames(), ","); names != want {
		t.Errorf("protocol_names = %q, want %q", names, want)
	}
}

func ptr[T any](v T) *T { return &v }

// stickyForRange puts cooperative-sticky behind the protocol name range.
const stickyForRange = `
version: 1
rules:
  - name: sticky-for-range
    match: {protocols: [range]}
    assignor: cooperative-sticky@1
`

// A rule may put cooperative-sticky behind "range": a request that leaves
// the rebalance protocol unspecified still runs EAGER, as range clients
// expect, because the Selection tells the server so.
func TestServerRunsNameDefaultProtocol(t *testing.T) {
	p := mustParse(t, stickyForRange)
	src := policytest.ServePolicy(t, p, policy.WithLogger(slog.New(slog.DiscardHandler)))
	client := serve(t, src)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := &assigndv1.AssignRequest{
		GroupId: "g", ProtocolName: "range",
		Topics: []*assigndv1.Topic{{Name: "t", PartitionCount: 4}},
		Members: []*assigndv1.Member{
			{MemberId: "a", Topics: []string{"t"}, OwnedPartitions: []*assigndv1.TopicPartitions{{Topic: "t", Partitions: []int32{0, 1, 2, 3}}}},
			{MemberId: "b", Topics: []string{"t"}},
		},
	}
	resp, err := client.Assign(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetRebalanceProtocol() != assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER || resp.GetFollowupRequired() ||
		resp.GetAssignor() != "cooperative-sticky" || resp.GetPolicy() != "sticky-for-range/"+p.Revision() {
		t.Errorf("got %s by %s (%s), followup %t; want EAGER by cooperative-sticky, no follow-up",
			resp.GetRebalanceProtocol(), resp.GetAssignor(), resp.GetPolicy(), resp.GetFollowupRequired())
	}
}
