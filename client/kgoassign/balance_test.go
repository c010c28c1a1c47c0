package kgoassign_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/testbed/shimtest"
)

func cooperativeGroup() *assign.Group {
	return assigntest.NewGroup().Generation(4).Protocol(assign.Cooperative).
		Topic("orders", 6).Topic("audit", 2).Racks("audit", []string{"az1", "az2"}, []string{"az2"}).
		Member("m1", "orders", "audit").Rack("m1", "az2").Owns("m1", "orders", 0, 1, 2, 3).Gen("m1", 3).
		Member("m2", "orders", "audit").Owns("m2", "orders", 4, 5).Owns("m2", "audit", 0, 1).Gen("m2", 3).
		Member("m3", "orders").
		Build()
}

func TestLeaderSendsRawMetadataAndReturnsAssigndBytes(t *testing.T) {
	real := shimtest.NewClient(t, shimtest.ServeAssignd(t))
	p := &shimtest.Proxy{Next: real}
	var reports []kgoassign.Report
	b := kgoassign.CooperativeSticky(shimtest.NewClient(t, shimtest.ServeFake(t, p)),
		kgoassign.WithLogger(shimtest.Quiet), kgoassign.WithObserver(func(r kgoassign.Report) { reports = append(reports, r) }))
	g := cooperativeGroup()

	out, err := lead(t, b, g)
	if err != nil {
		t.Fatal(err)
	}
	if st := b.Stats(); st != (kgoassign.Stats{Served: 1}) {
		t.Fatalf("stats %+v, want one served balance", st)
	}

	// The request: raw metadata as the members sent it, the group's
	// identity, topics sorted, replica racks because m1 has a rack.
	if len(p.Requests()) != 1 {
		t.Fatalf("%d requests", len(p.Requests()))
	}
	req := p.Requests()[0]
	if req.GetGroupId() != "g" || req.GetGenerationId() != 4 || req.GetLeaderId() != "m1" ||
		req.GetProtocolName() != "cooperative-sticky" || req.GetRebalanceProtocol() != assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE {
		t.Fatalf("request header %v", req)
	}
	joined := joinResponse("cooperative-sticky", g)
	for i, m := range req.GetMembers() {
		if m.GetMemberId() != joined[i].MemberID || !bytes.Equal(m.GetMetadata(), joined[i].ProtocolMetadata) || len(m.GetTopics()) > 0 {
			t.Fatalf("member %d: %v, want the raw metadata of %s", i, m, joined[i].MemberID)
		}
	}
	wantTopics := []*assigndv1.Topic{
		{Name: "audit", PartitionCount: 2, PartitionRacks: []*assigndv1.PartitionRacks{
			{Partition: 0, Racks: []string{"az1", "az2"}}, {Partition: 1, Racks: []string{"az2"}}}},
		{Name: "orders", PartitionCount: 6},
	}
	for i, tp := range req.GetTopics() {
		if !proto.Equal(tp, wantTopics[i]) {
			t.Fatalf("topic %d: %v, want %v", i, tp, wantTopics[i])
		}
	}

	// The answer: assignd's bytes, untouched.
	resp, err := real.Assign(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(resp.GetAssignments()) {
		t.Fatalf("%d assignments, assignd gave %d", len(out), len(resp.GetAssignments()))
	}
	for i, a := range resp.GetAssignments() {
		if out[i].MemberID != a.GetMemberId() || !bytes.Equal(out[i].MemberAssignment, a.GetAssignment()) {
			t.Fatalf("member %s: bytes differ from assignd's", a.GetMemberId())
		}
	}
	seen := map[string]string{}
	for id, tps := range decodeAll(t, out) {
		for _, tp := range tps {
			for _, p := range tp.Partitions {
				k := fmt.Sprintf("%s/%d", tp.Topic, p)
				if other, dup := seen[k]; dup {
					t.Fatalf("%s assigned to %s and %s", k, other, id)
				}
				seen[k] = id
			}
		}
	}
	if len(reports) != 1 || reports[0].Source != kgoassign.SourceService || reports[0].Members != 3 || reports[0].Partitions != 8 {
		t.Fatalf("reports %+v", reports)
	}
}

func TestFallback(t *testing.T) {
	real := shimtest.NewClient(t, shimtest.ServeAssignd(t))
	g := cooperativeGroup()
	want, err := lead(t, kgoassign.CooperativeSticky(nil, kgoassign.WithLogger(shimtest.Quiet)), g)
	if err != nil {
		t.Fatal(err)
	}
	drop := func(r *assigndv1.AssignResponse) (*assigndv1.AssignResponse, error) {
		r.Assignments = r.Assignments[1:]
		return r, nil
	}
	for _, tc := range []struct {
		name   string
		client func(t *testing.T) *client.Client
		opts   []kgoassign.Option
		reason string
		// check: a word the logged check names when the fallback means a
		// setting is wrong (logged at ERROR), "" otherwise (WARN).
		check string
	}{
		{"no client", func(*testing.T) *client.Client { return nil }, nil, "NoClient", ""},
		{"nothing listening", func(t *testing.T) *client.Client { return shimtest.NewClient(t, shimtest.ClosedAddr(t)) }, nil, "Unavailable", ""},
		{"slow", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Block: true}))
		},
			[]kgoassign.Option{kgoassign.WithTimeout(100 * time.Millisecond)}, "DeadlineExceeded", ""},
		{"error", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Next: real, Rewrite: func(*assigndv1.AssignResponse) (*assigndv1.AssignResponse, error) {
				return nil, status.Error(codes.ResourceExhausted, "busy")
			}}))
		}, nil, "ResourceExhausted", ""},
		{"member missing", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Next: real, Rewrite: drop}))
		}, nil, "InvalidResponse", ""},
		{"unknown member", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Next: real, Rewrite: func(r *assigndv1.AssignResponse) (*assigndv1.AssignResponse, error) {
				r.Assignments[0].MemberId = "stranger"
				return r, nil
			}}))
		}, nil, "InvalidResponse", ""},
		{"member twice", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Next: real, Rewrite: func(r *assigndv1.AssignResponse) (*assigndv1.AssignResponse, error) {
				r.Assignments[1] = r.Assignments[0]
				return r, nil
			}}))
		}, nil, "InvalidResponse", ""},
		{"empty assignment bytes", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Next: real, Rewrite: func(r *assigndv1.AssignResponse) (*assigndv1.AssignResponse, error) {
				r.Assignments[2].Assignment = nil
				return r, nil
			}}))
		}, nil, "InvalidResponse", ""},
		{"eager plan for a cooperative group", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Next: real, Rewrite: func(r *assigndv1.AssignResponse) (*assigndv1.AssignResponse, error) {
				r.RebalanceProtocol = assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
				return r, nil
			}}))
		}, nil, "InvalidResponse", ""},
		{"response over the client's limit", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeAssignd(t), client.WithMaxResponseBytes(64))
		}, nil, "ResourceExhausted", "WithMaxResponseBytes"},
		{"request over the server's limit", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeAssignd(t, server.WithMaxRecvBytes(64)))
		}, nil, "ResourceExhausted", "--max-recv-bytes"},
		{"group over the server's limit", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeAssignd(t, server.WithMaxPartitions(4)))
		}, nil, "ResourceExhausted", "--max-partitions"},
		{"TLS to a plaintext server", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeAssignd(t), client.WithTLS(&tls.Config{MinVersion: tls.VersionTLS12}))
		}, nil, "Unavailable", "WithTLS"},
		{"target resolves to nothing", func(t *testing.T) *client.Client {
			r := manual.NewBuilderWithScheme("nowhere")
			r.InitialState(resolver.State{})
			return shimtest.NewClient(t, "nowhere:///assignd", client.WithDialOptions(grpc.WithResolvers(r)))
		}, nil, "Unavailable", "client.New"},
		{"not assignd", func(t *testing.T) *client.Client {
			return shimtest.NewClient(t, shimtest.ServeFake(t, assigndv1.UnimplementedAssignmentServiceServer{}))
		}, nil, "Unimplemented", "client.New"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reader := sdkmetric.NewManualReader()
			var rep kgoassign.Report
			var logs bytes.Buffer
			opts := append([]kgoassign.Option{
				kgoassign.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
				kgoassign.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))),
				kgoassign.WithObserver(func(r kgoassign.Report) { rep = r }),
			}, tc.opts...)
			b := kgoassign.CooperativeSticky(tc.client(t), opts...)
			start := time.Now()
			got, err := lead(t, b, g)
			if err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Errorf("the balance took %s", took)
			}
			if st := b.Stats(); st != (kgoassign.Stats{Fallbacks: 1}) {
				t.Errorf("stats %+v, want one fallback", st)
			}
			if rep.Source != kgoassign.SourceFallback || rep.Reason != tc.reason {
				t.Errorf("report source %v reason %q (%v), want fallback %q", rep.Source, rep.Reason, rep.Err, tc.reason)
			}
			shimtest.CheckFallbackLog(t, logs.String(), rep.Check, tc.check)
			if n := fallbackCount(t, reader, tc.reason); n != 1 {
				t.Errorf("assignd.client.fallbacks{reason=%q} = %d, want 1", tc.reason, n)
			}
			sameAssignments(t, got, want)
		})
	}
}

func TestBalanceFailsWhenNeitherWayCan(t *testing.T) {
	// A subscription naming an empty topic is rejected by assignd and by
	// the in-process engine alike; kgo then fails the rebalance.
	g := cooperativeGroup()
	g.Members[2].Topics = []string{"", "orders"}
	var rep kgoassign.Report
	b := kgoassign.CooperativeSticky(shimtest.NewClient(t, shimtest.ServeAssignd(t)), kgoassign.WithLogger(shimtest.Quiet),
		kgoassign.WithObserver(func(r kgoassign.Report) { rep = r }))
	_, err := lead(t, b, g)
	if err == nil {
		t.Fatal("the balance succeeded")
	}
	var ie *assign.InputError
	if !errors.As(err, &ie) || ie.Member != "m3" {
		t.Fatalf("error %v does not name member m3", err)
	}
	if st := b.Stats(); st != (kgoassign.Stats{Failures: 1}) {
		t.Fatalf("stats %+v, want one failure", st)
	}
	if rep.Source != kgoassign.SourceNone || rep.Reason != "InvalidArgument" {
		t.Fatalf("report %+v", rep)
	}
}

// TestEveryLeaderGetsTheSameAnswer covers a broker that tells several
// members they lead the same generation (kfake does, after the leader
// leaves): whichever SyncGroup wins, the group gets the same plan, whether
// a leader reached assignd or fell back.
func TestEveryLeaderGetsTheSameAnswer(t *testing.T) {
	addr := shimtest.ServeAssignd(t)
	g := cooperativeGroup()
	var first []kmsg.SyncGroupRequestGroupAssignment
	for i, c := range []*client.Client{shimtest.NewClient(t, addr), shimtest.NewClient(t, addr), nil, shimtest.NewClient(t, shimtest.ClosedAddr(t))} {
		out, err := lead(t, kgoassign.CooperativeSticky(c, kgoassign.WithLogger(shimtest.Quiet)), g)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = out
			continue
		}
		sameAssignments(t, out, first)
	}
}

func sameAssignments(t fataler, got, want []kmsg.SyncGroupRequestGroupAssignment) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d assignments, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].MemberID != want[i].MemberID || !bytes.Equal(got[i].MemberAssignment, want[i].MemberAssignment) {
			t.Fatalf("member %s: %x, want %s: %x", got[i].MemberID, got[i].MemberAssignment, want[i].MemberID, want[i].MemberAssignment)
		}
	}
}

// fallbackCount reads the assignd.client.fallbacks counter for reason.
func fallbackCount(t *testing.T, r *sdkmetric.ManualReader, reason string) int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			sum, ok := m.Data.(metricdata.Sum[int64])
			if m.Name != "assignd.client.fallbacks" || !ok {
				continue
			}
			for _, dp := range sum.DataPoints {
				if v, _ := dp.Attributes.Value("reason"); v.AsString() == reason {
					n += dp.Value
				}
			}
		}
	}
	return n
}
