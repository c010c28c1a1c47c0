package server_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/test/bufconn"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/selection"
)

// benchServer serves with the production configuration: Prometheus
// metrics and call logs (to a discarded writer).
func benchServer(b *testing.B, opts ...server.Option) (assigndv1.AssignmentServiceClient, healthpb.HealthClient) {
	tel, err := server.NewTelemetry(context.Background(), "bench")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	srv, err := server.New(selection.Default(), slog.New(slog.NewTextHandler(io.Discard, nil)),
		append([]server.Option{server.WithMeterProvider(tel.MeterProvider()), server.WithTracerProvider(tel.TracerProvider())}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	go func() { _ = srv.Serve(lis) }()
	b.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	conn := dialBufconn(b, lis)
	b.Cleanup(func() { conn.Close() })
	return assigndv1.NewAssignmentServiceClient(conn), healthpb.NewHealthClient(conn)
}

// steadyGroup is an n-member cooperative group on topics × partitions in
// which every member owns what it was given last time.
func steadyGroup(b *testing.B, members, topics int, partitions int32) *assign.Group {
	g := &assign.Group{Generation: 7, Protocol: assign.Cooperative}
	var names []string
	for i := range topics {
		// Zero-padded, so that topic order is name order, as in a Java
		// member's metadata (sorted by name), which the decoder expects.
		names = append(names, fmt.Sprintf("topic-%04d", i))
		g.Topics = append(g.Topics, assign.Topic{Name: names[i], Partitions: partitions})
	}
	for i := range members {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("consumer-%02d", i), Topics: names, Generation: assign.NoGeneration})
	}
	prev, err := assign.Run(assign.CooperativeSticky(), g)
	if err != nil {
		b.Fatal(err)
	}
	for i, m := range prev.Members {
		g.Members[i].Owned, g.Members[i].Generation = m.Assigned, 6
	}
	return g
}

// BenchmarkAssign is the whole Assign RPC in-process (bufconn) for a
// 10-member, 3 × 32-partition cooperative group in raw-metadata form, next
// to an empty unary call. cmd/assignd-bench measures the same over
// loopback TCP with latency percentiles.
func BenchmarkAssign(b *testing.B) {
	client, health := benchServer(b)
	req, _ := requestFor(b, steadyGroup(b, 10, 3, 32), "cooperative-sticky", 3)
	ctx := context.Background()
	b.Run("empty-call", func(b *testing.B) {
		for b.Loop() {
			if _, err := health.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("assign-10x96-coop-metadata", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := client.Assign(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The same with the group history recording every call (its record is
	// built after the response is written), to compare in the same run.
	h, err := history.New()
	if err != nil {
		b.Fatal(err)
	}
	recording, _ := benchServer(b, server.WithHistory(h))
	b.Run("assign-10x96-coop-metadata-history", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := recording.Assign(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// millionFirst is the engine issue's case A: 500 topics × 2,000
// partitions, 2,000 members with equal subscriptions, first assignment.
func millionFirst() *assign.Group {
	g := &assign.Group{Generation: 1, Protocol: assign.Cooperative}
	var topics []string
	for i := range 500 {
		topics = append(topics, fmt.Sprintf("topic-%03d", i))
		g.Topics = append(g.Topics, assign.Topic{Name: topics[i], Partitions: 2000})
	}
	for i := range 2000 {
		g.Members = append(g.Members, assign.Member{ID: fmt.Sprintf("consumer-%04d", i), Topics: topics, Generation: assign.NoGeneration})
	}
	return g
}

// BenchmarkAssignMillion is the engine issue's case A end to end through
// the service (bufconn): 500 topics × 2,000 partitions, 2,000 members with
// equal subscriptions in raw-metadata form, first assignment.
func BenchmarkAssignMillion(b *testing.B) {
	client, _ := benchServer(b)
	req, _ := requestFor(b, millionFirst(), "cooperative-sticky", 3)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := client.Assign(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAssignMillionLeave is what a Java or Go leader sends when one
// member of a balanced 1M-partition group (500 topics × 2,000 partitions,
// 2,000 members) leaves: raw metadata (v3, owned partitions and
// generations), encoded answers. go test -cpuprofile on it shows where the
// server's time goes once the request is bytes.
func BenchmarkAssignMillionLeave(b *testing.B) {
	client, _ := benchServer(b)
	g := steadyGroup(b, 2000, 500, 2000)
	g.Members = append(g.Members[:1000], g.Members[1001:]...)
	req, _ := requestFor(b, g, "cooperative-sticky", 3)
	req.View = assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := client.Assign(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}
