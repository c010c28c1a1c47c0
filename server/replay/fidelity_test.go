package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/leader"
	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/replay"
	"github.com/assignd/assignd/server/request"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/shimtest"
)

// everyAssignor serves each group with the assignor its protocol name
// names ("name@version"), with the engine's default options.
type everyAssignor struct{}

func (everyAssignor) Select(_ context.Context, q selection.Query) (selection.Selection, error) {
	for _, a := range assign.Assignors() {
		if assign.Ref(a) == q.ProtocolName {
			return selection.Selection{Assignor: a, Policy: "fidelity", Protocol: a.Protocols()[0]}, nil
		}
	}
	return selection.Selection{}, fmt.Errorf("%w %q", selection.ErrUnknownProtocol, q.ProtocolName)
}

// fidelityRequest is a group of four members over three topics with
// partition weights, racks, owned partitions from an earlier plan (one
// member new) and one member in the raw form, as leaders send it.
func fidelityRequest(t *testing.T, a assign.Assignor) *assigndv1.AssignRequest {
	t.Helper()
	topics := []assign.Topic{
		{Name: "orders", Partitions: 6, Racks: [][]string{{"a"}, {"b"}, {"c"}, {"a"}, {"b"}, {"c"}}},
		{Name: "payments", Partitions: 5},
		{Name: "clicks", Partitions: 8},
	}
	req := &assigndv1.AssignRequest{GroupId: "g-" + assign.Ref(a), ProtocolName: assign.Ref(a), GenerationId: 7,
		PartitionWeights: []*assigndv1.PartitionWeights{
			{Topic: "orders", Weights: []float64{90, 1, 1, 1, 40, 1}},
			{Topic: "payments", Weights: []float64{5, 5, 50, 5, 5}},
			{Topic: "clicks", Weights: []float64{1, 2, 3, 4, 30, 6, 7, 80}},
		}, WeightUnit: "records/s"}
	for _, tp := range topics {
		req.Topics = append(req.Topics, apiconv.TopicToAPI(tp))
	}
	all := []string{"orders", "payments", "clicks"}
	owned := map[string][]*assigndv1.TopicPartitions{
		"m1": {{Topic: "orders", Partitions: []int32{0, 1, 2}}, {Topic: "clicks", Partitions: []int32{0, 1, 2, 3}}},
		"m2": {{Topic: "orders", Partitions: []int32{3, 4, 5}}, {Topic: "payments", Partitions: []int32{0, 1, 2, 3, 4}}},
		"m3": {{Topic: "clicks", Partitions: []int32{4, 5, 6, 7}}},
	}
	for i, id := range []string{"m1", "m2", "m3", "m4"} {
		rack := []string{"a", "b", "c", "a"}[i]
		m := &assigndv1.Member{MemberId: id, Topics: all, OwnedPartitions: owned[id], RackId: &rack, Generation: &req.GenerationId}
		req.Members = append(req.Members, m)
	}
	// The last member sends its subscription as the raw bytes of its
	// JoinGroup, at the highest version.
	m := req.Members[3]
	m.Metadata = wire.AppendSubscription(nil, &wire.Subscription{Version: wire.MaxVersion, Topics: all, Generation: -1, Rack: m.GetRackId()})
	m.Topics, m.RackId, m.Generation = nil, nil, nil
	return req
}

// TestReplayPlansWhatAssignServed: for every registered assignor, a
// recorded call replayed under what served it (same assignor, options and
// protocol) gives the served plan byte for byte, partition weights
// included: a replay decodes its input with Assign's decoder.
func TestReplayPlansWhatAssignServed(t *testing.T) {
	store, err := history.New()
	if err != nil {
		t.Fatal(err)
	}
	addr := shimtest.ServeSelector(t, everyAssignor{}, server.WithHistory(store))
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	svc := assigndv1.NewAssignmentServiceClient(conn)
	rs := replay.New(replay.Config{Store: store, MemoryBudget: server.DefaultMemoryBudget(0)})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, a := range assign.Assignors() {
		t.Run(assign.Ref(a), func(t *testing.T) {
			req := fidelityRequest(t, a)
			served, err := svc.Assign(ctx, req)
			if err != nil {
				t.Fatalf("Assign: %v", err)
			}
			waitForInput(t, store, req.GetGroupId())
			res, err := rs.Replan(ctx, req.GetGroupId(), a, a.Protocols()[0])
			if err != nil {
				t.Fatalf("Replan: %v", err)
			}
			in, err := request.Decode(req, a.Protocols()[0])
			if err != nil {
				t.Fatal(err)
			}
			encoded := leader.Encode(res, in.Versions)
			replayed := make(map[string][]byte, len(encoded))
			for i, m := range res.Members {
				replayed[m.ID] = encoded[i]
			}
			if len(replayed) != len(served.GetAssignments()) {
				t.Fatalf("replay planned %d members, Assign served %d", len(replayed), len(served.GetAssignments()))
			}
			for _, sa := range served.GetAssignments() {
				if got := replayed[sa.GetMemberId()]; !bytes.Equal(got, sa.GetAssignment()) {
					t.Errorf("member %s: replayed assignment %x, served %x", sa.GetMemberId(), got, sa.GetAssignment())
				}
			}
		})
	}
}

// waitForInput waits, boundedly, for the call's input to be kept: the
// server records it once the response is written.
func waitForInput(t *testing.T, store *history.Store, group string) {
	t.Helper()
	for range 200 {
		if len(store.Inputs(group)) > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("group %s: no input kept", group)
}
