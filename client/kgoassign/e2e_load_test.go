package kgoassign_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/loadsource"
	"github.com/assignd/assignd/testbed/grouplab"
	"github.com/assignd/assignd/testbed/loadtopic"
	"github.com/assignd/assignd/testbed/policytest"
	"github.com/assignd/assignd/testbed/shimtest"
)

// End to end with real franz-go consumers on kfake: a backlog written
// with two hot partitions of twelve, assignd sampling the rates from the
// broker, and two groups of three consumers that each spend perRecord
// on every record. The group whose policy rule runs load-sticky@1 with load
// from Kafka (and a count cap loose enough for one member to take every
// idle partition) puts each hot partition with a member of its own, with
// at most one idle partition beside it (within its tolerance); the
// count-balanced group (cooperative-sticky@1) cannot do better. The
// figures (records of the busiest member, drain time) go to the test log.
func TestLoadStickyDrainsSkewedBacklog(t *testing.T) {
	ctx := grouplab.Budget(t, "consumes a backlog in real time; skipped with -short", 90*time.Second)
	most := map[string]int{}
	for _, group := range []string{"load-events", "count-events"} {
		records, took := runSkewed(ctx, t, group)
		most[group] = records
		t.Logf("%s: the busiest member had %d of 900 records; drained in %s", group, records, took.Round(time.Millisecond))
	}
	// The bound is 300 records (a hot partition, and the mean member
	// load); load-sticky@1 settles anywhere within its default tolerance
	// of it (10%): a hot partition alone, or with one idle partition,
	// depending on which member the first rebalance gave it.
	if most["load-events"] > 300*(1+0.10) {
		t.Errorf("load-sticky: the busiest member had %d records, want at most 330 (within the tolerance of the bound, 300)", most["load-events"])
	}
	if most["load-events"] > most["count-events"] {
		t.Errorf("load-sticky's busiest member had %d records, cooperative-sticky's %d", most["load-events"], most["count-events"])
	}
}

// startLoadBroker starts a broker with a topic "events" of n partitions
// that the test loads by hand, and a load source tracking the topic,
// sampled once at t0; all stop when the test ends.
func startLoadBroker(ctx context.Context, t *testing.T, n int32) (events *loadtopic.Topic, src *loadsource.Source, t0 time.Time) {
	t.Helper()
	events = loadtopic.Start(t, "events", n, kfake.GroupMinSessionTimeout(100*time.Millisecond))
	src = loadsource.New(kadm.NewClient(events.Producer).ListEndOffsets)
	_, _ = src.Weights([]string{"events"}, time.Now()) // track the topic
	t0 = time.Now()
	if err := src.Sample(ctx, t0); err != nil {
		t.Fatal(err)
	}
	return events, src, t0
}

// runSkewed starts a broker with the skewed backlog and assignd with the
// load policy and a Kafka load source, each of its own, and drains the
// backlog with group.
func runSkewed(ctx context.Context, t *testing.T, group string) (int, time.Duration) {
	events, src, t0 := startLoadBroker(ctx, t, 12)
	perPartition := []int{300, 300, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30}
	total := 0
	for _, n := range perPartition {
		total += n
	}
	events.Produce(ctx, t, perPartition...)
	if err := src.Sample(ctx, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}

	ac := serveLoadPolicy(t, `version: 1
rules:
  - name: load
    match: {group_prefixes: [load-], protocols: [cooperative-sticky]}
    assignor: load-sticky@1
    params: {load_source: kafka, max_count_skew: 8}
`, src)

	return drain(ctx, t, events.Seeds, ac, group, perPartition, total)
}

// perRecord is what a consumer spends on each record.
const perRecord = 3 * time.Millisecond

// drain runs three consumers of group until they settle, then lets them
// process the backlog at perRecord a record; it returns the records
// of the busiest member's partitions and the time to drain.
func drain(ctx context.Context, t *testing.T, seeds []string, ac *client.Client, group string, perPartition []int, total int) (int, time.Duration) {
	t.Helper()
	var mu sync.Mutex
	owned := map[string]map[int32]bool{}
	lastChange := time.Now()
	gate := make(chan struct{})
	// The consumers poll with their own context, ended once the backlog
	// is drained: a poll blocks until records come or it ends.
	pollCtx, stopPolling := context.WithCancel(ctx)
	defer stopPolling()
	var processed atomic.Int64
	var wg sync.WaitGroup
	var clients []*kgo.Client
	for _, name := range []string{"a", "b", "c"} {
		mu.Lock()
		owned[name] = map[int32]bool{}
		mu.Unlock()
		cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumerGroup(group), kgo.ConsumeTopics("events"),
			kgo.Balancers(kgoassign.CooperativeSticky(ac)),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit(),
			kgo.SessionTimeout(time.Second), kgo.HeartbeatInterval(100*time.Millisecond), kgo.RebalanceTimeout(2*time.Second),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				mu.Lock()
				defer mu.Unlock()
				for _, p := range m["events"] {
					owned[name][p] = true
				}
				lastChange = time.Now()
			}),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				mu.Lock()
				defer mu.Unlock()
				for _, p := range m["events"] {
					delete(owned[name], p)
				}
				lastChange = time.Now()
			}),
		)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, cl)
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case <-gate:
			case <-ctx.Done():
				return
			}
			for processed.Load() < int64(total) && pollCtx.Err() == nil {
				fs := cl.PollRecords(pollCtx, 100)
				fs.EachRecord(func(*kgo.Record) {
					time.Sleep(perRecord)
					processed.Add(1)
				})
			}
		}()
	}
	defer func() {
		for _, cl := range clients {
			cl.Close()
		}
	}()
	// Settled: every partition owned by one member, nothing changed for
	// a second.
	joined := time.Now()
	for {
		if ctx.Err() != nil {
			mu.Lock()
			t.Fatalf("%s never settled: %v, last change %s ago", group, owned, time.Since(lastChange))
		}
		mu.Lock()
		n, quiet := 0, time.Since(lastChange) > time.Second
		for _, ps := range owned {
			n += len(ps)
		}
		mu.Unlock()
		if n == len(perPartition) && quiet {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	busiest := 0
	mu.Lock()
	for _, ps := range owned {
		records := 0
		for p := range ps {
			records += perPartition[p]
		}
		busiest = max(busiest, records)
	}
	mu.Unlock()
	t.Logf("%s settled in %s", group, time.Since(joined).Round(time.Millisecond))
	start := time.Now()
	close(gate)
	for processed.Load() < int64(total) {
		if ctx.Err() != nil {
			t.Fatalf("%s: %d of %d records processed", group, processed.Load(), total)
		}
		time.Sleep(10 * time.Millisecond)
	}
	took := time.Since(start)
	stopPolling()
	wg.Wait()
	return busiest, took
}

// serveLoadPolicy runs assignd with the policy yaml and the load source
// src until the test ends, and returns a client of it.
func serveLoadPolicy(t *testing.T, yaml string, src *loadsource.Source) *client.Client {
	t.Helper()
	addr := shimtest.ServeSelector(t, policytest.Serve(t, yaml), server.WithLoadSource(src))
	return shimtest.NewClient(t, addr, client.WithTimeout(5*time.Second))
}
