package kafkalog_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	"github.com/assignd/assignd/internal/bus"
	"github.com/assignd/assignd/internal/kafkaconn"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/history/kafkalog"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/metrictest"
)

// replica is one in-process assignd sharing its history through the log.
type replica struct {
	name    string
	store   *history.Store
	log     *kafkalog.Log
	bus     *bus.Bus
	srv     *server.Server
	served  chan error
	conn    *grpc.ClientConn
	assign  assigndv1.AssignmentServiceClient
	history assigndv1.GroupHistoryServiceClient
	metrics *sdkmetric.ManualReader
}

func startReplica(t *testing.T, name, broker string) *replica {
	t.Helper()
	r := &replica{name: name, metrics: sdkmetric.NewManualReader(), served: make(chan error, 1)}
	b, err := bus.New(kafkaconn.Config{Brokers: broker}, bus.WithTopic("fleet-history"),
		bus.WithBuffer(16), bus.WithDeliveryTimeout(time.Second),
		// Reconnect at once when the broker is back.
		bus.WithKgoOptions(kgo.MetadataMinAge(100*time.Millisecond), kgo.RetryBackoffFn(func(int) time.Duration { return 50 * time.Millisecond })),
		bus.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(r.metrics))),
		bus.WithLogger(slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelInfo})).With("replica", name)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := kafkalog.New(b, kafkalog.WithGapRetry(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	if r.store, err = history.New(history.WithReplica(name), history.WithPublisher(l)); err != nil {
		t.Fatal(err)
	}
	r.log, r.bus = l, b
	l.Start(r.store)
	b.Start()
	if r.srv, err = server.New(selection.Default(), slog.New(slog.DiscardHandler), server.WithHistory(r.store)); err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	go func() { r.served <- r.srv.Serve(lis) }()
	r.conn, err = grpc.NewClient("passthrough:///"+name,
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	r.assign, r.history = assigndv1.NewAssignmentServiceClient(r.conn), assigndv1.NewGroupHistoryServiceClient(r.conn)
	t.Cleanup(r.stop)
	return r
}

// stop shuts the replica down: the server, then its log (idempotent).
func (r *replica) stop() {
	if r.srv == nil {
		return
	}
	r.conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
	<-r.served
	r.log.Close()
	r.bus.Close()
	r.srv = nil
}

// request is a cooperative-sticky group of two members over 6 partitions.
func request(group string, gen int32) *assigndv1.AssignRequest {
	return &assigndv1.AssignRequest{
		GroupId: group, GenerationId: gen, ProtocolName: "cooperative-sticky", LeaderId: "a",
		Members: []*assigndv1.Member{{MemberId: "a", Topics: []string{"orders"}}, {MemberId: "b", Topics: []string{"orders"}}},
		Topics:  []*assigndv1.Topic{{Name: "orders", PartitionCount: 6}},
	}
}

func (r *replica) call(t *testing.T, group string, gen int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := r.assign.Assign(ctx, request(group, gen)); err != nil {
		t.Fatalf("%s: Assign %s generation %d: %v", r.name, group, gen, err)
	}
}

// eventually polls cond for up to 30 seconds.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if err = cond(); err == nil {
			return
		}
	}
	t.Fatalf("%s: %v", what, err)
}

// sees checks that r's history holds group's decision of gen, made by
// replica from.
func (r *replica) sees(group string, gen int32, from string) error {
	resp, err := r.history.GetGroup(context.Background(), &assigndv1.GetGroupRequest{GroupId: group})
	if err != nil {
		return fmt.Errorf("%s: GetGroup %s: %w", r.name, group, err)
	}
	for _, d := range resp.GetDecisions() {
		if d.GetGenerationId() == gen && d.GetReplica() == from {
			return nil
		}
	}
	return fmt.Errorf("%s: %s has no decision of generation %d by %s (%d decisions)", r.name, group, gen, from, len(resp.GetDecisions()))
}

// counter is the sum of a counter's data points.
func (r *replica) counter(t *testing.T, name string) int64 {
	t.Helper()
	return metrictest.Sum(t, r.metrics, name)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func startBroker(t *testing.T, port int, dir string) *kfake.Cluster {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.DataDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestThreeReplicasShareOneTopic runs three replicas on one topic: what
// any serves, each shows; a replica restarted reads its history back;
// a broker outage leaves Assign answering, the records made meanwhile
// are dropped and counted, and once the broker is back recording resumes
// and every replica shows the gap.
func TestThreeReplicasShareOneTopic(t *testing.T) {
	port, dir := freePort(t), t.TempDir()
	broker := startBroker(t, port, dir)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	rs := []*replica{startReplica(t, "r0", addr), startReplica(t, "r1", addr), startReplica(t, "r2", addr)}

	for i, r := range rs {
		r.call(t, fmt.Sprintf("group-%d", i), 1)
	}
	for _, r := range rs {
		for i, from := range rs {
			eventually(t, "every replica sees every decision", func() error { return r.sees(fmt.Sprintf("group-%d", i), 1, from.name) })
		}
	}

	// r0 is killed and restarted: a new run reads the topic from its start.
	rs[0].stop()
	rs[0] = startReplica(t, "r0", addr)
	for i, from := range []string{"r0", "r1", "r2"} {
		eventually(t, "the restarted replica has its history back", func() error { return rs[0].sees(fmt.Sprintf("group-%d", i), 1, from) })
	}
	resp, err := rs[0].history.GetGroup(context.Background(), &assigndv1.GetGroupRequest{GroupId: "group-0"})
	if err != nil {
		t.Fatal(err)
	}
	if _, inc := rs[0].store.Replica(); resp.GetDecisions()[0].GetIncarnation() == inc {
		t.Errorf("group-0's decision is stamped with the new run's incarnation; want the killed run's")
	}
	if n := len(resp.GetDecisions()); n != 1 {
		t.Errorf("group-0 holds %d decisions after the restart, want 1 (read once, no duplicate)", n)
	}

	// The broker goes away. Assign answers as before; the records are
	// dropped and counted.
	broker.Close()
	const during = 40
	for gen := int32(2); gen < 2+during; gen++ {
		rs[1].call(t, "group-1", gen)
	}
	eventually(t, "records made during the outage are dropped and counted", func() error {
		if n := rs[1].counter(t, "assignd.history.records.dropped"); n < during {
			return fmt.Errorf("%d dropped, want %d", n, during)
		}
		return nil
	})
	if err := rs[1].sees("group-1", 1+during, "r1"); err != nil {
		t.Errorf("the replica that served them keeps them: %v", err)
	}

	// The broker comes back on the same port with its data: recording
	// resumes by itself, and the gap is visible from every replica.
	broker = startBroker(t, port, dir)
	defer broker.Close()
	// The first records after it may still be dropped while the client
	// reconnects: a decision a second, until one reaches every replica.
	gen := int32(1 + during)
	for resumed := false; !resumed; {
		if gen++; gen > 60+during {
			t.Fatal("no decision made after the broker came back reached every replica")
		}
		rs[1].call(t, "group-1", gen)
		for deadline := time.Now().Add(time.Second); !resumed && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			resumed = rs[0].sees("group-1", gen, "r1") == nil && rs[1].sees("group-1", gen, "r1") == nil && rs[2].sees("group-1", gen, "r1") == nil
		}
	}
	t.Logf("recording resumed with generation %d (the outage's last was %d)", gen, 1+during)
	for _, r := range rs {
		eventually(t, "the gap is visible", func() error {
			resp, err := r.history.ListGroups(context.Background(), &assigndv1.ListGroupsRequest{})
			if err != nil {
				return err
			}
			for _, rep := range resp.GetReplicas() {
				if rep.GetReplica() != "r1" || rep.GetDropped() < during {
					continue
				}
				for _, g := range rep.GetGaps() {
					if len(g.GetGroups()) != 1 || g.GetGroups()[0] != "group-1" || g.GetReason() == "" || !g.GetLastDropped().AsTime().After(g.GetFirstDropped().AsTime().Add(-time.Nanosecond)) {
						return fmt.Errorf("%s: gap %v; want records of group-1 and a reason", r.name, g)
					}
				}
				return nil
			}
			return fmt.Errorf("%s: no gap of %d records of r1 in %v", r.name, during, resp.GetReplicas())
		})
	}
	// Records made before the outage were not lost: r2 still holds r0's
	// first decision, and r1's from before the outage.
	if err := rs[2].sees("group-1", 1, "r1"); err != nil {
		t.Error(err)
	}
}
