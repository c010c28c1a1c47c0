package server

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// FuzzAssign feeds arbitrary AssignRequests to the handler: it must never
// panic, and every rejection must be a client error naming what is wrong
// (INVALID_ARGUMENT or RESOURCE_EXHAUSTED with details), never INTERNAL.
// Accepted requests must give one assignment per member, each with
// decodable assignment bytes.
func FuzzAssign(f *testing.F) {
	examples, _ := filepath.Glob("../examples/*.json")
	invalid, _ := filepath.Glob("../examples/invalid/*.json")
	for _, path := range append(examples, invalid...) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		req := &assigndv1.AssignRequest{}
		if err := protojson.Unmarshal(data, req); err != nil {
			f.Fatalf("%s: %v", path, err)
		}
		b, _ := proto.Marshal(req)
		f.Add(b)
	}
	sub := wire.AppendSubscription(nil, &wire.Subscription{Version: 2, Topics: []string{"a", "b"}, Generation: 3,
		Owned: []wire.TopicPartitions{{Topic: "a", Partitions: []int32{0, 9}}}})
	b, _ := proto.Marshal(&assigndv1.AssignRequest{ProtocolName: "sticky", Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 3}},
		Members: []*assigndv1.Member{{MemberId: "m", Metadata: sub}, {MemberId: "n", Topics: []string{"a"}}}})
	f.Add(b)

	metrics, err := newDomainMetrics(metricnoop.NewMeterProvider(), func() int64 { return 0 }, func() int64 { return 0 })
	if err != nil {
		f.Fatal(err)
	}
	svc := &service{
		sel: selection.Default(), logger: slog.New(slog.DiscardHandler), admission: newAdmission(1, 1<<30, time.Second, 0),
		maxPartitions: 5000, run: runEngine, metrics: metrics,
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		req := &assigndv1.AssignRequest{}
		if proto.Unmarshal(data, req) != nil {
			return
		}
		resp, err := svc.Assign(context.Background(), req)
		if err != nil {
			st := status.Convert(err)
			if st.Code() != codes.InvalidArgument && st.Code() != codes.ResourceExhausted {
				t.Fatalf("rejected with %s: %v", st.Code(), err)
			}
			if rpcerr.ReasonOf(err) == assigndv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
				t.Fatalf("no ErrorInfo reason: %v", err)
			}
			return
		}
		if len(resp.GetAssignments()) != len(req.GetMembers()) {
			t.Fatalf("%d assignments for %d members", len(resp.GetAssignments()), len(req.GetMembers()))
		}
		for _, a := range resp.GetAssignments() {
			if _, err := wire.DecodeAssignment(a.GetAssignment()); err != nil {
				t.Fatalf("%s: undecodable assignment: %v", a.GetMemberId(), err)
			}
		}
	})
}
