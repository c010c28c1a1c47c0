package kgoassign_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	"github.com/assignd/assignd/testbed/grouplab"
	"github.com/assignd/assignd/testbed/loadtopic"
)

// shiftPartitions is the topic's partition count in the shift scenario.
const shiftPartitions = 12

// Tolerance and hysteresis of load-sticky@1 (its defaults, 0.10 and 0.05):
// after the shift the busiest member's load must be within
// bound × (1 + shiftSlack).
const shiftSlack = 0.10 + 0.05

// shiftMoveCap is the rule's max_moves_per_rebalance: the bound on the
// partitions the shift may move.
const shiftMoveCap = 4

// End to end with real franz-go consumers on kfake, in two phases. The
// first backlog has two hot partitions (0 and 1, 300 records each, ten of
// 30); once the group drained it, a second backlog moves the hot spot onto
// two other partitions, both owned by one member (the member holding the
// most partitions: the adversarial shift for either assignor). assignd
// samples the rates from the broker (its Kafka load source) as they change,
// and the leader is made to rebalance (ForceRebalance), with no membership
// change. load-sticky@1 must follow the shift with at most shiftMoveCap
// moves a rebalance (a start that needs more, as when one member owns
// most of the partitions, takes more than one) and leave the busiest
// member within the tolerance of the bound;
// cooperative-sticky@1, in the same run, moves nothing and drains slower.
//
// With ASSIGND_LOAD_PLOT set to a path (relative to the module root), the
// test writes there an SVG of each member's backlog over time for both
// assignors; docs/load-aware.svg is made so. Without it the plot goes to a
// temporary directory, so that every run still renders it.
func TestLoadStickyFollowsHotSpotShift(t *testing.T) {
	ctx := grouplab.Budget(t, "consumes two backlogs in real time; skipped with -short", 120*time.Second)
	groups := []string{"count-events", "load-events"}
	res := map[string]shiftRun{}
	for _, g := range groups {
		r := runShift(ctx, t, g)
		res[g] = r
		for i, ph := range r.phases {
			t.Logf("%s phase %d: the busiest member had %d of %d records (max lag); drained in %s", g, i+1, ph.busiest, ph.total, ph.took.Round(time.Millisecond))
		}
		t.Logf("%s owners before the shift %v, after %v; rates %.1f", g, r.before, r.after, r.weights)
		t.Logf("%s shift: hot spot onto %v; %d partitions moved in %d rebalances (revoked by each: %v); busiest member load %.1f, bound %.1f (%.3f of it) records/s", g, r.hot, r.moves, r.plans, r.perPlan, r.busiestLoad, r.bound, r.busiestLoad/r.bound)
	}
	load, count := res["load-events"], res["count-events"]
	if load.moves == 0 {
		t.Errorf("load-sticky moved nothing after the shift")
	}
	for i, n := range load.perPlan {
		if n > shiftMoveCap {
			t.Errorf("load-sticky's rebalance %d after the shift revoked %d partitions, over max_moves_per_rebalance %d (each: %v)", i+1, n, shiftMoveCap, load.perPlan)
		}
	}
	if load.busiestLoad > load.bound*(1+shiftSlack) {
		t.Errorf("load-sticky after the shift: busiest member load %.1f, over the bound %.1f × %.2f", load.busiestLoad, load.bound, 1+shiftSlack)
	}
	if count.moves != 0 {
		t.Errorf("cooperative-sticky moved %d partitions with no membership change", count.moves)
	}
	if load.phases[1].busiest >= count.phases[1].busiest {
		t.Errorf("after the shift load-sticky's busiest member had %d records, cooperative-sticky's %d", load.phases[1].busiest, count.phases[1].busiest)
	}

	out := os.Getenv("ASSIGND_LOAD_PLOT")
	if out == "" {
		out = filepath.Join(t.TempDir(), "load-aware.svg")
	} else if !filepath.IsAbs(out) {
		out = filepath.Join(moduleRoot(t), out)
	}
	svg := renderLoadPlot([]plotPanel{
		{title: "cooperative-sticky@1", run: count},
		{title: "load-sticky@1 (load from Kafka)", run: load},
	})
	if err := os.WriteFile(out, svg, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("plot: %s (%d bytes)", out, len(svg))
}

// shiftRun is what one group's run measured.
type shiftRun struct {
	phases      [2]phaseResult
	hot         []int32 // the partitions the hot spot moved to
	moves       int     // partitions whose owner changed after the shift
	plans       int     // the rebalances the leader planned after the shift
	perPlan     []int   // the partitions each of them revoked
	before      [shiftPartitions]string
	after       [shiftPartitions]string
	weights     []float64
	busiestLoad float64 // the busiest member's load after the shift, by the source's rates
	bound       float64 // the largest member load no plan can beat
	samples     []loadSample
	shiftAt     float64 // when the shifted backlog began, seconds since the first phase began
}

type phaseResult struct {
	busiest, total int
	took           time.Duration
}

// loadSample is every member's backlog (records of its partitions not
// yet processed) at one moment, seconds since the first phase began.
type loadSample struct {
	at      float64
	pending map[string]int
}

// moduleRoot is the directory of go.mod above the test's directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

func runShift(ctx context.Context, t *testing.T, group string) shiftRun {
	t.Helper()
	// The samples carry times of their own, so that the rates do not
	// depend on how fast the machine produces: the first backlog is one
	// second's traffic, the second four quarters of a second. With the
	// default smoothing (the newest rate weighs 0.3) four samples of the
	// new rates outweigh the old ones.
	events, src, t0 := startLoadBroker(ctx, t, shiftPartitions)
	var produced [shiftPartitions]atomic.Int64
	first := backlog(0, 1)
	produceCounts(ctx, t, events, first, &produced)
	if err := src.Sample(ctx, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}

	ac := serveLoadPolicy(t, fmt.Sprintf(`version: 1
rules:
  - name: load
    match: {group_prefixes: [load-], protocols: [cooperative-sticky]}
    assignor: load-sticky@1
    params: {load_source: kafka, max_count_skew: 8, max_moves_per_rebalance: %d}
`, shiftMoveCap), src)

	g := newShiftGroup(ctx, t, events.Seeds, ac, group, &produced)
	defer g.close()
	g.settle(t, ctx, nil)
	var run shiftRun
	began := time.Now()
	stopSampling := g.sample(began)
	run.phases[0] = g.consume(t, ctx, first)

	// Phase 2: hold the consumers, commit what they processed (a moved
	// partition's new owner starts there), write the shifted backlog,
	// let the source see it and make the leader rebalance.
	for _, cl := range g.clients {
		cl.PauseFetchTopics("events")
		if err := cl.CommitUncommittedOffsets(ctx); err != nil {
			t.Fatal(err)
		}
	}
	before := g.owners()
	run.hot = shiftTargets(before)
	second := backlog(run.hot...)
	run.shiftAt = time.Since(began).Seconds()
	for k := range 4 {
		chunk := make([]int, shiftPartitions)
		for p, n := range second {
			chunk[p] = n*(k+1)/4 - n*k/4
		}
		produceCounts(ctx, t, events, chunk, &produced)
		if err := src.Sample(ctx, t0.Add(time.Second+time.Duration(k+1)*250*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	calls := g.assignedCalls()
	plans := g.plans.Load()
	g.leaderClient().ForceRebalance()
	g.settle(t, ctx, calls)
	run.plans = int(g.plans.Load() - plans)
	after := g.owners()
	run.perPlan = g.revokedByPlan(int(plans), after)
	for p := range after {
		if after[p] != before[p] {
			run.moves++
		}
	}
	ws, err := src.Weights([]string{"events"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	run.busiestLoad, run.bound = memberLoads(after, ws[0].Weights)
	run.before, run.after, run.weights = before, after, ws[0].Weights
	run.phases[1] = g.consume(t, ctx, second)
	run.samples = stopSampling()
	return run
}

// backlog is one phase's records per partition: 300 on each hot
// partition, 30 on the others.
func backlog(hot ...int32) []int {
	out := make([]int, shiftPartitions)
	for p := range out {
		out[p] = 30
		if slices.Contains(hot, int32(p)) {
			out[p] = 300
		}
	}
	return out
}

func produceCounts(ctx context.Context, t *testing.T, events *loadtopic.Topic, counts []int, produced *[shiftPartitions]atomic.Int64) {
	t.Helper()
	events.Produce(ctx, t, counts...)
	for p, n := range counts {
		produced[p].Add(int64(n))
	}
}

// shiftTargets picks where the hot spot moves: the two lowest partitions,
// other than the first hot ones, of the member holding the most partitions
// (the first such member by name).
func shiftTargets(owners [shiftPartitions]string) []int32 {
	held := map[string][]int32{}
	for p, m := range owners {
		if p > 1 {
			held[m] = append(held[m], int32(p))
		}
	}
	names := make([]string, 0, len(held))
	for m := range held {
		names = append(names, m)
	}
	slices.Sort(names)
	best := names[0]
	for _, m := range names {
		if len(held[m]) > len(held[best]) {
			best = m
		}
	}
	return held[best][:2]
}

// memberLoads returns the busiest member's load and the bound: the mean
// member load or the heaviest partition, whichever is larger (three
// members, equal subscriptions).
func memberLoads(owners [shiftPartitions]string, weights []float64) (busiest, bound float64) {
	load := map[string]float64{}
	total := 0.0
	for p, m := range owners {
		load[m] += weights[p]
		total += weights[p]
		bound = max(bound, weights[p])
	}
	for _, l := range load {
		busiest = max(busiest, l)
	}
	return busiest, max(bound, total/3)
}

// shiftGroup is three consumers of one group that process records at
// perRecord each, and what they own.
type shiftGroup struct {
	mu         sync.Mutex
	owned      map[string]map[int32]bool
	calls      map[string]int // OnPartitionsAssigned calls, one per rebalance the member completes
	lastChange time.Time
	produced   *[shiftPartitions]atomic.Int64 // records written, by partition
	consumed   [shiftPartitions]atomic.Int64
	processed  atomic.Int64
	clients    []*kgo.Client
	names      []string
	leader     string                    // the member that planned the latest rebalance
	plans      atomic.Int64              // rebalances planned by the group's leader
	planned    [][shiftPartitions]string // the owners as each rebalance was planned
	stop       context.CancelFunc
	wg         sync.WaitGroup
	group      string
}

func newShiftGroup(ctx context.Context, t *testing.T, seeds []string, ac *client.Client, group string, produced *[shiftPartitions]atomic.Int64) *shiftGroup {
	t.Helper()
	g := &shiftGroup{owned: map[string]map[int32]bool{}, calls: map[string]int{}, lastChange: time.Now(), names: []string{"a", "b", "c"}, group: group, produced: produced}
	pollCtx, stop := context.WithCancel(ctx)
	g.stop = stop
	// Every member's set exists before the first client starts: a started
	// client's callbacks read g.owned while the next clients are made.
	for _, name := range g.names {
		g.owned[name] = map[int32]bool{}
	}
	for _, name := range g.names {
		cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.ConsumerGroup(group), kgo.ConsumeTopics("events"),
			kgo.Balancers(leaderSpy{GroupBalancer: kgoassign.CooperativeSticky(ac), g: g, name: name}),
			kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit(),
			kgo.SessionTimeout(time.Second), kgo.HeartbeatInterval(100*time.Millisecond), kgo.RebalanceTimeout(2*time.Second),
			kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				g.mu.Lock()
				defer g.mu.Unlock()
				for _, p := range m["events"] {
					g.owned[name][p] = true
				}
				g.calls[name]++
				g.lastChange = time.Now()
			}),
			kgo.OnPartitionsRevoked(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
				g.mu.Lock()
				defer g.mu.Unlock()
				for _, p := range m["events"] {
					delete(g.owned[name], p)
				}
				g.lastChange = time.Now()
			}),
		)
		if err != nil {
			t.Fatal(err)
		}
		// Paused until the group settled, so that the first phase's
		// backlog is processed under the settled plan.
		cl.PauseFetchTopics("events")
		g.clients = append(g.clients, cl)
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			for pollCtx.Err() == nil {
				cl.PollRecords(pollCtx, 100).EachRecord(func(r *kgo.Record) {
					time.Sleep(perRecord)
					g.consumed[r.Partition].Add(1)
					g.processed.Add(1)
				})
			}
		}()
	}
	return g
}

// leaderSpy notes which member leads the group: the one whose balancer
// plans the group.
type leaderSpy struct {
	kgo.GroupBalancer
	g    *shiftGroup
	name string
}

func (s leaderSpy) MemberBalancer(members []kmsg.JoinGroupResponseMember) (kgo.GroupMemberBalancer, map[string]struct{}, error) {
	owners := s.g.owners()
	s.g.mu.Lock()
	s.g.leader = s.name
	s.g.planned = append(s.g.planned, owners)
	s.g.mu.Unlock()
	s.g.plans.Add(1)
	return s.GroupBalancer.MemberBalancer(members)
}

// leaderClient is the client of the member that planned the latest
// rebalance: ForceRebalance rejoins the group only from the leader
// (KIP-568).
func (g *shiftGroup) leaderClient() *kgo.Client {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.clients[slices.Index(g.names, g.leader)]
}

// revokedByPlan counts, for each rebalance from the from'th on, the
// partitions it took from their owners: owned as it was planned, and no
// longer that member's as the next was planned (the cooperative protocol
// revokes before the follow-up) or, for the last, in after.
func (g *shiftGroup) revokedByPlan(from int, after [shiftPartitions]string) []int {
	g.mu.Lock()
	snaps := append(slices.Clone(g.planned[from:]), after)
	g.mu.Unlock()
	out := make([]int, len(snaps)-1)
	for k := range out {
		for p, owner := range snaps[k] {
			if owner != "" && snaps[k+1][p] != owner {
				out[k]++
			}
		}
	}
	return out
}

func (g *shiftGroup) close() {
	g.stop()
	for _, cl := range g.clients {
		cl.Close()
	}
	g.wg.Wait()
}

func (g *shiftGroup) assignedCalls() map[string]int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.calls)
}

// settle waits until every partition has one owner, every member completed
// a rebalance since calls (when given), and nothing changed for a second.
func (g *shiftGroup) settle(t *testing.T, ctx context.Context, calls map[string]int) {
	t.Helper()
	for {
		g.mu.Lock()
		n, quiet := 0, time.Since(g.lastChange) > time.Second
		for _, ps := range g.owned {
			n += len(ps)
		}
		rebalanced := true
		for _, name := range g.names {
			if calls != nil && g.calls[name] <= calls[name] {
				rebalanced = false
			}
		}
		if ctx.Err() != nil {
			defer g.mu.Unlock()
			t.Fatalf("%s never settled: %v, last change %s ago", g.group, g.owned, time.Since(g.lastChange))
		}
		g.mu.Unlock()
		if n == shiftPartitions && quiet && rebalanced {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (g *shiftGroup) owners() [shiftPartitions]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out [shiftPartitions]string
	for name, ps := range g.owned {
		for p := range ps {
			out[p] = name
		}
	}
	return out
}

// consume resumes fetching and waits until the phase's records are
// processed; it returns the records of the busiest member's partitions
// and the time to drain.
func (g *shiftGroup) consume(t *testing.T, ctx context.Context, counts []int) phaseResult {
	t.Helper()
	total := 0
	for _, n := range counts {
		total += n
	}
	per := map[string]int{}
	for p, m := range g.owners() {
		per[m] += counts[p]
	}
	res := phaseResult{total: total}
	for _, n := range per {
		res.busiest = max(res.busiest, n)
	}
	want := int64(0)
	for p := range g.produced {
		want += g.produced[p].Load()
	}
	start := time.Now()
	for _, cl := range g.clients {
		cl.ResumeFetchTopics("events")
	}
	for g.processed.Load() < want {
		if ctx.Err() != nil {
			t.Fatalf("%s: %d of %d records processed", g.group, g.processed.Load(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	res.took = time.Since(start)
	return res
}

// sample records every member's backlog every 50 ms until the returned
// function is called; that function returns the samples.
func (g *shiftGroup) sample(began time.Time) func() []loadSample {
	var out []loadSample
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			out = append(out, g.snapshot(began))
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() []loadSample {
		close(done)
		<-stopped
		return append(out, g.snapshot(began))
	}
}

// snapshot is every member's backlog now: of its partitions, the records
// written less those processed (more than once after a move: never below
// zero).
func (g *shiftGroup) snapshot(began time.Time) loadSample {
	s := loadSample{at: time.Since(began).Seconds(), pending: map[string]int{}}
	owners := g.owners()
	for p, m := range owners {
		if m == "" {
			continue
		}
		s.pending[m] += max(0, int(g.produced[p].Load()-g.consumed[p].Load()))
	}
	for _, n := range g.names {
		s.pending[n] += 0 // a member without partitions is in the plot at zero
	}
	return s
}
