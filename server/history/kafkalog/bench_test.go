package kafkalog_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/assignd/assignd/internal/bus"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/selection"
)

// smallGroup is a 10-member cooperative-sticky group over 3 topics of 12
// partitions: the small Assign whose latency history must not change.
func smallGroup(gen int32) *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{GroupId: "bench", GenerationId: gen, ProtocolName: "cooperative-sticky",
		Topics: []*assigndv1.Topic{{Name: "a", PartitionCount: 12}, {Name: "b", PartitionCount: 12}, {Name: "c", PartitionCount: 12}}}
	for m := range 10 {
		req.Members = append(req.Members, &assigndv1.Member{MemberId: fmt.Sprintf("m%d", m), Topics: []string{"a", "b", "c"}})
	}
	return req
}

// target is one assignd under benchmark.
type target struct {
	name   string
	client assigndv1.AssignmentServiceClient
	took   []time.Duration
}

// serve starts an in-process assignd with opts until the benchmark ends.
func serve(b *testing.B, name string, opts ...server.Option) *target {
	srv, err := server.New(selection.Default(), slog.New(slog.DiscardHandler), opts...)
	if err != nil {
		b.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	go func() { _ = srv.Serve(lis) }()
	b.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	conn, err := grpc.NewClient("passthrough:///"+name,
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	return &target{name: name, client: assigndv1.NewAssignmentServiceClient(conn)}
}

// shared is a history shared through a log on brokers.
func shared(b *testing.B, brokers string, opts ...bus.Option) server.Option {
	return server.WithHistory(sharedStore(b, brokers, "", append([]bus.Option{bus.WithTopic("bench-history")}, opts...)...))
}

// BenchmarkAssignHistory is the latency of a small Assign, over gRPC
// in-process, with no history, the in-memory history, the history shared
// through a Kafka that is up (kfake, in the same process), and through
// one that is down (nothing listens on its port; measured once the log
// has seen it fail, every record dropped). The four servers are called in
// turn, so that they share the machine's load alike; it reports each
// one's median and 99th percentile, and the medians' ratios to none.
// Run: go test ./server/history/kafkalog -run X -bench AssignHistory -benchtime 3000x -count 3
func BenchmarkAssignHistory(b *testing.B) {
	broker := kfake.MustCluster(kfake.NumBrokers(1))
	defer broker.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	down := l.Addr().String()
	l.Close()
	memory, _ := history.New()
	ts := []*target{
		serve(b, "none"),
		serve(b, "memory", server.WithHistory(memory)),
		serve(b, "kafka-up", shared(b, broker.ListenAddrs()[0])),
		serve(b, "kafka-down", shared(b, down, bus.WithDeliveryTimeout(time.Second))),
	}
	ctx := context.Background()
	call := func(t *target, gen int32) time.Duration {
		start := time.Now()
		if _, err := t.client.Assign(ctx, smallGroup(gen)); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for gen := range int32(100) { // warm up: connections, pools, the logs' clients
		for _, t := range ts {
			call(t, gen)
		}
	}
	time.Sleep(2 * time.Second) // the down log sees its records fail
	b.ResetTimer()
	for i := range b.N {
		for _, t := range ts {
			t.took = append(t.took, call(t, int32(i)))
		}
	}
	b.StopTimer()
	var base float64
	for _, t := range ts {
		slices.Sort(t.took)
		p50 := float64(t.took[len(t.took)/2].Nanoseconds()) / 1e3
		if base == 0 {
			base = p50
		}
		b.ReportMetric(p50, t.name+"-p50-µs")
		b.ReportMetric(float64(t.took[len(t.took)*99/100].Nanoseconds())/1e3, t.name+"-p99-µs")
		if t.name != "none" {
			b.ReportMetric(p50/base, t.name+"/none-p50")
		}
	}
}
