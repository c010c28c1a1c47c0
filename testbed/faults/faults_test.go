package faults

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/kafkabroker"
)

// TestFaults runs the faults one after another on one cluster, one set
// of replicas and the same groups: a slow link to one replica, one
// replica killed in a storm, the groups' coordinator killed during a
// rebalance; then it checks that nothing was lost. Each step logs what it
// cost the leaders (docs/operations.md has the figures).
func TestFaults(t *testing.T) {
	if os.Getenv("ASSIGND_BROKER") != "kafka" {
		t.Skip("starts a three-node Kafka cluster: set ASSIGND_BROKER=kafka (and run scripts/kafka-jars.sh)")
	}
	if err := kafkabroker.Available(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	e := setUp(ctx, t)
	t.Logf("set up: 3 Kafka nodes, replicas r1 r2 r3 (r3 behind the delay line), %d groups of %d members; load %s",
		len(e.groups), membersAtStart, loadAverage())

	t.Run("SlowReplica", func(t *testing.T) { e.slowReplica(ctx, t) })
	t.Run("ReplicaKilledInStorm", func(t *testing.T) { e.replicaKilledInStorm(ctx, t) })
	t.Run("CoordinatorKilledInRebalance", func(t *testing.T) { e.coordinatorKilled(ctx, t) })
	t.Run("NothingLost", func(t *testing.T) { e.nothingLost(ctx, t) })
}

// slowLink is the delay each way between the leaders and r3: a call
// through it takes at least two of them.
const slowLink = 200 * time.Millisecond

// stormGroups is how many groups' leaders call in the storm: a tenth of
// the storm benchmark's 5,000 in a second, since the cluster and every
// consumer share the machine.
const stormGroups = 500

// slowReplica: with r3 behind a slow link, a member joins every group,
// and a storm of 60 leaders calls. Round robin still sends r3 its third
// of the calls, which pay the link's round trip and nothing more: no
// call falls back while the round trip is within the deadline. Then 30
// leaders call with the link slower than the deadline.
func (e *env) slowReplica(ctx context.Context, t *testing.T) {
	e.slow.setDelay(slowLink)
	defer e.slow.setDelay(0)
	t0 := time.Now()
	for _, g := range e.groups {
		if err := g.add(); err != nil {
			t.Fatal(err)
		}
	}
	errs := storm(ctx, e.storm, "slow", 60, time.Second)
	took, err := e.settleAll(ctx, t0, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	s := summarize(e.calls.since(t0))
	e.report(t, "slow link to r3", t0, took, s)
	if len(errs) > 0 || len(s.failed) > 0 {
		t.Errorf("calls failed through the slow link (%v): %v", s.failed, errs)
	}
	if s.byServer["r3"] == 0 {
		t.Fatalf("no call reached r3: %v", s.byServer)
	}
	// The delay line works: r3's calls took at least one round trip
	// more than the others'.
	if fast := max(s.p50["r1"], s.p50["r2"]); s.p50["r3"] < fast+slowLink*3/2 {
		t.Errorf("r3's median call %v, the others' %v: the delay line did not delay", s.p50["r3"], fast)
	}
	e.noFallbacks(t, t0)

	// Past the deadline: the round robin still sends r3 its third, and
	// each of those calls ends at the client's timeout, DEADLINE_EXCEEDED
	// (not retried), where a leader falls back.
	e.slow.setDelay(client.DefaultTimeout)
	t1 := time.Now()
	storm(ctx, e.storm, "slower", 30, 500*time.Millisecond)
	s = summarize(e.calls.since(t1))
	t.Logf("link to r3 slower than the deadline (%v each way; load %s): %d calls; answered by r1 %d, r2 %d, r3 %d; unanswered %v",
		client.DefaultTimeout, loadAverage(), s.calls, s.byServer["r1"], s.byServer["r2"], s.byServer["r3"], s.failed)
	for _, c := range e.calls.since(t1) {
		if first := c.firstReplica(); (first == "r3") != (c.code == codes.DeadlineExceeded) {
			t.Errorf("group %s: first attempt on %s ended %v", c.group, first, c.code)
		}
	}
	if s.failed[codes.DeadlineExceeded] == 0 {
		t.Error("no call through the slowest link ran out of time")
	}
	// What the line holds is delivered in order: let it drain.
	e.slow.setDelay(0)
	time.Sleep(client.DefaultTimeout + 500*time.Millisecond)
}

// replicaKilledInStorm: every group loses a member and the leaders of
// stormGroups other groups call within a second; half way r2 is killed
// (SIGKILL).
// The calls in flight on r2 are retried on another replica (gRPC retries
// UNAVAILABLE) and the round robin drops r2: no leader falls back.
// Restarted, r2 reads the history of the calls the others served back
// from the topic.
func (e *env) replicaKilledInStorm(ctx context.Context, t *testing.T) {
	t0 := time.Now()
	if err := eachOf(e.groups, func(g *group) error { return g.leave(ctx) }); err != nil {
		t.Fatal(err)
	}
	var errs []error
	done := make(chan struct{})
	go func() {
		defer close(done)
		errs = storm(ctx, e.storm, "storm", stormGroups, time.Second)
	}()
	time.Sleep(500 * time.Millisecond)
	killed := time.Now()
	e.replicas["r2"].kill()
	<-done
	took, err := e.settleAll(ctx, t0, 60*time.Second)
	if err != nil {
		t.Error(err)
	}
	all := e.calls.since(t0)
	s := summarize(all)
	e.report(t, "r2 killed in a storm", t0, took, s)
	for _, err := range errs {
		if c := status.Code(err); c != codes.Unavailable && c != codes.DeadlineExceeded {
			t.Errorf("a storm call failed otherwise than a dead replica would make it: %v", err)
		}
	}
	var after, inFlight, elsewhere int
	for _, c := range all {
		if c.firstReplica() == "r2" && c.start.Before(killed) && c.start.Add(c.took).After(killed) {
			inFlight++
			if by := c.servedBy(); by != "" && by != "r2" {
				elsewhere++
			}
		}
		if c.start.After(killed) && c.servedBy() == "r2" {
			t.Errorf("a call of group %s that started after the kill was answered by r2", c.group)
		}
		if c.start.After(killed.Add(time.Second)) && c.servedBy() == "" {
			after++
		}
	}
	t.Logf("calls in flight on r2 when it was killed: %d, of which %d answered by another replica", inFlight, elsewhere)
	if after > 0 {
		t.Errorf("%d calls that started a second or more after the kill found no replica", after)
	}
	if len(errs) > 0 || len(s.failed) > 0 {
		t.Errorf("%d storm calls would have fallen back (%v)", len(errs), s.failed)
	}
	e.fallbacksHaveReasons(t, t0)

	// r2, restarted, reads back what r1 and r3 served.
	r2 := e.replicas["r2"]
	if err := r2.start(ctx); err != nil {
		t.Fatal(err)
	}
	e.historyShows(ctx, t, "r2", all, killed, 20)
}

// coordinatorKilled: a member joins every group, and the moment the
// first assignd leader has planned, before its SyncGroup, the broker
// that coordinates the groups is killed (SIGKILL). Every group finds its
// new coordinator and settles; the assignd groups pay what the built-in
// ones pay. With a node down the replicas still write and read the
// history topic (replication factor 3, min.insync.replicas 2), and a
// replica restarted then reads it back.
func (e *env) coordinatorKilled(ctx context.Context, t *testing.T) {
	first := e.groups[0]
	coord, err := kafkabroker.GroupCoordinator(ctx, e.cluster.Addr(), first.name)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	var killedAt time.Time
	killed := make(chan error, 1)
	hook := func(kgoassign.Report) {
		once.Do(func() {
			killedAt = time.Now()
			killed <- e.cluster.Node(coord).Kill()
		})
	}
	first.onBalance.Store(&hook)
	defer first.onBalance.Store(nil)
	t0 := time.Now()
	for _, g := range e.groups {
		if err := g.add(); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-killed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("no assignd leader planned within 60 s: the coordinator was not killed")
	}
	t.Logf("node %d, the coordinator, killed %v after the joins, as %s's leader had planned",
		coord, killedAt.Sub(t0).Round(time.Millisecond), first.name)
	took, err := e.settleAll(ctx, t0, 120*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	now, err := kafkabroker.GroupCoordinator(ctx, e.cluster.Addr(), first.name)
	if err != nil || now == coord {
		t.Errorf("the coordinator after the kill: node %d (%v); want another than %d", now, err, coord)
	}
	s := summarize(e.calls.since(t0))
	e.report(t, fmt.Sprintf("coordinator (node %d) killed in a rebalance", coord), t0, took, s)
	e.noFallbacks(t, t0)
	// The assignd groups rebalance as fast as the built-in ones: the
	// failover costs both the same, and a call is milliseconds.
	shim, native := meanTook(took, true), meanTook(took, false)
	if shim > native+4*time.Second {
		t.Errorf("assignd groups took %v on average, built-in ones %v", shim, native)
	}

	// The history topic with a node down: 30 new groups' leaders call;
	// each decision is shown by a replica that did not serve it.
	t1 := time.Now()
	if errs := storm(ctx, e.storm, "after", 30, time.Second); len(errs) > 0 {
		t.Errorf("calls failed after the broker's loss: %v", errs)
	}
	after := e.calls.since(t1)
	e.historyElsewhere(ctx, t, after)
	// r1, restarted now, rebuilds its history from the topic.
	e.replicas["r1"].kill()
	if err := e.replicas["r1"].start(ctx); err != nil {
		t.Fatal(err)
	}
	e.historyShows(ctx, t, "r1", after, time.Time{}, 30)
	for _, name := range []string{"r1", "r2", "r3"} {
		dropped, _ := e.replicas[name].metric("assignd_history_records_dropped_total")
		produced, _ := e.replicas[name].metric("assignd_history_records_produced_total")
		t.Logf("history: replica %s produced %.0f records, dropped %.0f (since its last start)", name, produced, dropped)
	}
}

// nothingLost stops the producer, waits until every group has consumed
// every record it acknowledged, stops the members (each commits on its
// way out), and compares each group's committed offsets with the end of
// every partition; then no partition was ever owned by two members of a
// group at once.
func (e *env) nothingLost(ctx context.Context, t *testing.T) {
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := e.producer.Stop(sctx); err != nil {
		t.Error(err)
	}
	failed, lastErr := e.producer.Failures()
	t.Logf("records: %d produced and acknowledged, %d failed to produce (last: %v)", e.groups[0].ledger.ProducedCount(), failed, lastErr)
	for _, g := range e.groups {
		deadline := time.Now().Add(60 * time.Second)
		for g.ledger.Unconsumed() > 0 && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if n := g.ledger.Unconsumed(); n > 0 {
			t.Errorf("group %s: %d acknowledged records never consumed", g.name, n)
		}
	}
	_ = eachOf(e.groups, func(g *group) error { g.closeAll(sctx); return nil })

	cl, err := kgo.NewClient(kgo.SeedBrokers(e.cluster.Seeds()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ends, err := adm.ListEndOffsets(sctx, e.topic)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range e.groups {
		committed, err := adm.FetchOffsets(sctx, g.name)
		if err != nil {
			t.Errorf("group %s: fetching offsets: %v", g.name, err)
			continue
		}
		var behind []string
		ends.Each(func(o kadm.ListedOffset) {
			c, ok := committed.Lookup(o.Topic, o.Partition)
			if !ok || c.At != o.Offset {
				behind = append(behind, fmt.Sprintf("%d: committed %d of %d", o.Partition, c.At, o.Offset))
			}
		})
		if len(behind) > 0 {
			t.Errorf("group %s did not commit through the end: %v", g.name, behind)
		}
		if p := g.ledger.Problems(); len(p) > 0 {
			t.Errorf("group %s: %d ownership violations:\n%s\n%s", g.name, len(p), strings.Join(p, "\n"), g.ledger.History())
		}
		t.Logf("group %s (%s): %d ownership violations, %d records consumed twice\n%s", g.name, g.kind(),
			len(g.ledger.Problems()), g.ledger.Duplicates(), duplicates(g.ledger, g.ledger.ProducedCount()+int(failed)))
	}
}

// report logs what a fault cost the leaders.
func (e *env) report(t *testing.T, what string, t0 time.Time, took map[*group]time.Duration, s callSummary) {
	t.Helper()
	var lines []string
	for _, g := range e.groups {
		var fb []string
		for _, b := range g.balancesSince(t0) {
			if b.source != client.SourceService {
				fb = append(fb, b.source.String()+" "+b.reason)
			}
		}
		lines = append(lines, fmt.Sprintf("  %-9s (%-8s) settled %6v after the change; fallbacks %d %v",
			g.name, g.kind(), took[g].Round(10*time.Millisecond), len(fb), fb))
	}
	rs := slices.Sorted(func(yield func(string) bool) {
		for r := range s.byServer {
			if !yield(r) {
				return
			}
		}
	})
	var by []string
	for _, r := range rs {
		by = append(by, fmt.Sprintf("%s %d (p50 %v)", r, s.byServer[r], s.p50[r].Round(time.Millisecond)))
	}
	t.Logf("%s (load %s): %d calls; answered by %s; %d answered by another replica after a failed attempt; unanswered %v\n"+
		"  rebalance time, mean: assignd groups %v, built-in %v\n%s",
		what, loadAverage(), s.calls, strings.Join(by, ", "), s.elsewhere, s.failed,
		meanTook(took, true).Round(10*time.Millisecond), meanTook(took, false).Round(10*time.Millisecond), strings.Join(lines, "\n"))
}

func meanTook(took map[*group]time.Duration, shim bool) time.Duration {
	var sum time.Duration
	n := 0
	for g, d := range took {
		if g.shim == shim {
			sum += d
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / time.Duration(n)
}

// noFallbacks: every shim leader's plan since t0 came from assignd.
func (e *env) noFallbacks(t *testing.T, t0 time.Time) {
	t.Helper()
	for _, g := range e.groups {
		for _, b := range g.balancesSince(t0) {
			if b.source != client.SourceService {
				t.Errorf("group %s: a leader's plan came from the %s (%s)", g.name, b.source, b.reason)
			}
		}
	}
}

// fallbacksHaveReasons: a shim leader that fell back since t0 says why,
// with the code of a replica that was down.
func (e *env) fallbacksHaveReasons(t *testing.T, t0 time.Time) {
	t.Helper()
	for _, g := range e.groups {
		for _, b := range g.balancesSince(t0) {
			if b.source == client.SourceFallback && b.reason != "Unavailable" && b.reason != "DeadlineExceeded" {
				t.Errorf("group %s: a fallback with reason %q", g.name, b.reason)
			}
			if b.source == client.SourceNone {
				t.Errorf("group %s: a leader could not plan at all", g.name)
			}
		}
	}
}

// historyShows waits until the replica name shows, for up to n of the
// calls answered (those started after since, if set), the decision with
// the replica that answered it: it read them from the topic.
func (e *env) historyShows(ctx context.Context, t *testing.T, name string, cs []*call, since time.Time, n int) {
	t.Helper()
	want := map[string]string{} // group → replica that answered
	for _, c := range cs {
		if by := c.servedBy(); by != "" && by != name && c.start.After(since) && len(want) < n {
			want[c.group] = by
		}
	}
	if len(want) == 0 {
		t.Fatalf("no call answered by another replica than %s to look for", name)
	}
	hc := e.history(t, name)
	deadline := time.Now().Add(60 * time.Second)
	for len(want) > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		for g, by := range want {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			resp, err := hc.GetGroup(cctx, &assigndv1.GetGroupRequest{GroupId: g})
			cancel()
			if err == nil && slices.ContainsFunc(resp.GetDecisions(), func(d *assigndv1.Decision) bool { return d.GetReplica() == by }) {
				delete(want, g)
			}
		}
		if len(want) > 0 {
			time.Sleep(200 * time.Millisecond)
		}
	}
	if len(want) > 0 {
		t.Errorf("replica %s never showed the decisions of %d groups from the history topic: %v", name, len(want), keys(want))
	}
}

// historyElsewhere waits until each answered call's decision is shown by
// a replica that did not answer it.
func (e *env) historyElsewhere(ctx context.Context, t *testing.T, cs []*call) {
	t.Helper()
	byReplica := map[string][]*call{}
	for _, c := range cs {
		if by := c.servedBy(); by != "" {
			other := map[string]string{"r1": "r2", "r2": "r3", "r3": "r1"}[by]
			byReplica[other] = append(byReplica[other], c)
		}
	}
	for other, cs := range byReplica {
		e.historyShows(ctx, t, other, cs, time.Time{}, len(cs))
	}
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
