package faults

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/grouplab"
	"github.com/assignd/assignd/testbed/kafkabroker"
)

// The fleet under test.
const (
	topic          = "orders"
	partitions     = 12
	historyTopic   = "faults-history"
	membersAtStart = 3
	// stormLeaders is how many clients the storms' leaders share, as
	// leader processes would.
	stormLeaders = 6
)

// env is the cluster, the replicas, the leaders' view of their calls and
// the groups.
type env struct {
	cluster      *kafkabroker.Cluster
	topic        string
	partitions   grouplab.TPSet
	replicas     map[string]*replica // r1, r2, r3
	slow         *delayLine          // in front of r3
	replicaAddrs []string            // what the leaders' resolver lists
	calls        *calls
	log          *slog.Logger
	groups       []*group
	storm        []*client.Client
	producer     *grouplab.Producer
}

// setUp starts the cluster, the replicas, the groups (settled) and the
// producer; everything stops when the test ends, whether it passes or
// not.
func setUp(ctx context.Context, t *testing.T) *env {
	t.Helper()
	dir := t.TempDir()
	bin := assigndBinary(t, dir)
	cluster, err := kafkabroker.StartCluster(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	cluster.StopOnCleanup(t)
	if err := kafkabroker.CreateTopics(ctx, cluster.Addr(), map[string]int32{topic: partitions}); err != nil {
		t.Fatal(err)
	}
	e := &env{cluster: cluster, topic: topic, partitions: grouplab.AllPartitions(map[string]int32{topic: partitions}),
		replicas: map[string]*replica{}, log: quietLogger(testWriter{t})}

	shared := []string{"ASSIGND_HISTORY_BROKERS=" + cluster.Addr(), "ASSIGND_HISTORY_TOPIC=" + historyTopic}
	for _, name := range []string{"r1", "r2", "r3"} {
		r, err := newReplica(bin, name, dir, shared)
		if err != nil {
			t.Fatal(err)
		}
		e.replicas[name] = r
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("replica %s's log, last 40 lines:\n%s", name, r.logTail(40))
			}
			r.kill()
		})
	}
	if err := eachOf([]string{"r1", "r2", "r3"}, func(name string) error { return e.replicas[name].start(ctx) }); err != nil {
		t.Fatal(err)
	}
	if e.slow, err = startDelayLine(e.replicas["r3"].grpcAddr); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.slow.close)
	e.replicaAddrs = []string{e.replicas["r1"].grpcAddr, e.replicas["r2"].grpcAddr, e.slow.addr()}
	e.calls = newCalls(map[string]string{e.replicaAddrs[0]: "r1", e.replicaAddrs[1]: "r2", e.replicaAddrs[2]: "r3"})
	for range stormLeaders {
		c, err := e.calls.newClient(e.replicaAddrs)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		e.storm = append(e.storm, c)
	}

	for _, name := range []string{"assignd-a", "assignd-b", "assignd-c", "builtin-a", "builtin-b"} {
		g := &group{name: name, shim: strings.HasPrefix(name, "assignd"), env: e, ledger: grouplab.NewLedger()}
		e.groups = append(e.groups, g)
		for range membersAtStart {
			if err := g.add(); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = eachOf(e.groups, func(g *group) error { g.closeAll(cctx); return nil })
	})
	var tps []grouplab.TP
	for tp := range e.partitions {
		tps = append(tps, tp)
	}
	e.producer, err = grouplab.StartProducer(cluster.Seeds(), tps, 20*time.Millisecond, func(tp grouplab.TP, off int64) {
		for _, g := range e.groups {
			g.ledger.Produced(tp, off)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = e.producer.Stop(cctx)
	})
	if _, err := e.settleAll(ctx, time.Now(), 90*time.Second); err != nil {
		t.Fatal(err)
	}
	return e
}

// settleAll waits, bounded by d, until every group has settled, and
// returns each group's rebalance time since t0.
func (e *env) settleAll(ctx context.Context, t0 time.Time, d time.Duration) (map[*group]time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var mu sync.Mutex
	took := map[*group]time.Duration{}
	err := eachOf(e.groups, func(g *group) error {
		d, err := g.settle(ctx, t0, 1500*time.Millisecond)
		mu.Lock()
		took[g] = d
		mu.Unlock()
		return err
	})
	return took, err
}

// history is a GroupHistoryService client of one replica.
func (e *env) history(t *testing.T, name string) assigndv1.GroupHistoryServiceClient {
	t.Helper()
	conn, err := grpc.NewClient(e.replicas[name].grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return assigndv1.NewGroupHistoryServiceClient(conn)
}

// eachOf runs fn on every item at once and returns the errors joined.
func eachOf[T any](items []T, fn func(T) error) error {
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn(it)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// loadAverage is the 1-minute load average, for the figures' context.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// testWriter sends the shims' warnings to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

var _ io.Writer = testWriter{}
