package kgoassign_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/grouplab"
	"github.com/assignd/assignd/testbed/policytest"
	"github.com/assignd/assignd/testbed/shimtest"
)

// rackCluster is a three-broker kfake that looks rack-aware. kfake itself
// reports one rack for every broker and lists only the leader as replica
// (so a shim sees no partition racks); a kept Metadata control function
// answers instead with broker i on rack "az<i+1>" and each partition's
// replicas on its leader and the next broker, so every partition has two
// racks and every rack is off for a third of the partitions. Leaders (as
// kfake serves them) and topic ids are kfake's own, so produce, fetch and
// the group still work.
type rackCluster struct {
	*kfake.Cluster
	nodes   []int32 // sorted
	leaders []int32 // by partition
	// moved holds the replicas (leader first) of partitions reassigned
	// by move; the others are on their leader and the next broker.
	mu    sync.Mutex
	moved map[int32][]int32
	// served counts Metadata answers given since the last move.
	served atomic.Int32
}

// startRackCluster skips the test under -short; otherwise it starts the
// cluster with topic and returns it with the test's context, which ends
// 15 s from now or with the test.
func startRackCluster(t *testing.T, topic string, partitions int32) (context.Context, *rackCluster) {
	t.Helper()
	ctx := grouplab.Budget(t, "end-to-end test against a Kafka broker", 15*time.Second)
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(partitions, topic),
		// kfake's default minimum session (6 s) would forbid the short
		// sessions that keep the test quick, as in grouplab.
		kfake.GroupMinSessionTimeout(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)

	// kfake's own answer, read once before the control function is
	// installed: it gives the node ids, addresses and topic id. Leaders
	// come from LeaderFor (the control function runs on kfake's loop,
	// where LeaderFor would wait for itself).
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	req := kmsg.NewPtrMetadataRequest()
	rt := kmsg.NewMetadataRequestTopic()
	rt.Topic = kmsg.StringPtr(topic)
	req.Topics = append(req.Topics, rt)
	base, err := req.RequestWith(ctx, cl)
	cl.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(base.Brokers) != 3 || len(base.Topics) != 1 || len(base.Topics[0].Partitions) != int(partitions) {
		t.Fatalf("kfake metadata: %d brokers, %d topics", len(base.Brokers), len(base.Topics))
	}
	nodes := make([]int32, 0, 3)
	for _, b := range base.Brokers {
		nodes = append(nodes, b.NodeID)
	}
	slices.Sort(nodes)

	// Leaders are pinned round-robin (kfake places them at random), so
	// each pair of racks holds a third of the partitions and a balanced
	// plan can put every partition on its rack: the test's end state is
	// then always reachable.
	leaders := make([]int32, partitions)
	rc := &rackCluster{Cluster: c, nodes: nodes, leaders: leaders}
	for p := range partitions {
		if err := c.MoveTopicPartition(topic, p, nodes[int(p)%len(nodes)]); err != nil {
			t.Fatal(err)
		}
		leaders[p] = c.LeaderFor(topic, p)
	}
	topicID := base.Topics[0].TopicID

	c.ControlKey(int16(kmsg.Metadata), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		rc.served.Add(1)
		req := kr.(*kmsg.MetadataRequest)
		resp := req.ResponseKind().(*kmsg.MetadataResponse)
		for _, b := range base.Brokers {
			sb := b
			sb.Rack = kmsg.StringPtr(rc.rackOf(b.NodeID))
			resp.Brokers = append(resp.Brokers, sb)
		}
		resp.ClusterID = base.ClusterID
		resp.ControllerID = base.ControllerID
		st := kmsg.NewMetadataResponseTopic()
		st.Topic = kmsg.StringPtr(topic)
		st.TopicID = topicID
		for p := range partitions {
			sp := kmsg.NewMetadataResponseTopicPartition()
			sp.Partition = p
			sp.Replicas = rc.replicas(p)
			sp.Leader = sp.Replicas[0]
			sp.ISR = sp.Replicas
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
		return resp, nil, true
	})
	return ctx, rc
}

// onRack reports whether rack is one of tp's replica racks.
func (rc *rackCluster) onRack(tp grouplab.TP, rack string) bool {
	return slices.Contains(rc.racksOf(tp), rack)
}

func (rc *rackCluster) rackOf(node int32) string {
	return fmt.Sprintf("az%d", slices.Index(rc.nodes, node)+1)
}

func (rc *rackCluster) next(node int32) int32 {
	return rc.nodes[(slices.Index(rc.nodes, node)+1)%len(rc.nodes)]
}

// racksOf returns tp's replicas' racks, sorted.
func (rc *rackCluster) racksOf(tp grouplab.TP) []string {
	var r []string
	for _, n := range rc.replicas(tp.Partition) {
		r = append(r, rc.rackOf(n))
	}
	slices.Sort(r)
	return r
}

func (rc *rackCluster) replicas(p int32) []int32 {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if r, ok := rc.moved[p]; ok {
		return r
	}
	return []int32{rc.leaders[p], rc.next(rc.leaders[p])}
}

// move reassigns partition p to the single broker node (its leader in
// kfake too, so fetches follow it) and counts Metadata answers afresh.
func (rc *rackCluster) move(t *testing.T, topic string, p, node int32) {
	t.Helper()
	if err := rc.MoveTopicPartition(topic, p, node); err != nil {
		t.Fatal(err)
	}
	rc.mu.Lock()
	if rc.moved == nil {
		rc.moved = map[int32][]int32{}
	}
	rc.moved[p] = []int32{node}
	rc.mu.Unlock()
	rc.served.Store(0)
}

// rackEvent is one callback of a rack member, with the generation kgo
// reports in it.
type rackEvent struct {
	member string
	kind   string // "assigned", "revoked" or "lost"
	gen    int32
	tps    []grouplab.TP
}

// rackGroup records what the members of one group report.
type rackGroup struct {
	ledger *grouplab.Ledger

	mu      sync.Mutex
	events  []rackEvent
	reports []kgoassign.Report
}

func (g *rackGroup) record(member, kind string, cl *kgo.Client, m map[string][]int32) {
	_, gen := cl.GroupMetadata()
	var tps []grouplab.TP
	for topic, ps := range m {
		for _, p := range ps {
			tps = append(tps, grouplab.TP{Topic: topic, Partition: p})
		}
	}
	set := grouplab.SetOf(tps...)
	if kind == "assigned" {
		g.ledger.Assigned(member, set, time.Now())
	} else {
		g.ledger.Revoked(member, set, time.Now(), kind)
	}
	g.mu.Lock()
	g.events = append(g.events, rackEvent{member: member, kind: kind, gen: gen, tps: set.Sorted()})
	g.mu.Unlock()
}

func (g *rackGroup) snapshot() ([]rackEvent, []kgoassign.Report) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.events), slices.Clone(g.reports)
}

// startRackMember starts a cooperative-sticky shim member on rack,
// polling until the test ends.
func startRackMember(t *testing.T, ctx context.Context, rc *rackCluster, g *rackGroup, addr, topic, name, rack string) *kgo.Client {
	t.Helper()
	bal, err := kgoassign.New(shimtest.NewClient(t, addr), assign.NameCooperativeSticky,
		kgoassign.WithLogger(shimtest.Quiet),
		kgoassign.WithObserver(func(r kgoassign.Report) {
			g.mu.Lock()
			g.reports = append(g.reports, r)
			g.mu.Unlock()
		}))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(
		kgo.SeedBrokers(rc.ListenAddrs()...),
		kgo.ConsumerGroup("rack"),
		kgo.ConsumeTopics(topic),
		kgo.Balancers(bal),
		kgo.Rack(rack),
		kgo.HeartbeatInterval(100*time.Millisecond),
		kgo.SessionTimeout(3*time.Second),
		kgo.RebalanceTimeout(5*time.Second),
		kgo.OnPartitionsAssigned(func(_ context.Context, cl *kgo.Client, m map[string][]int32) {
			g.record(name, "assigned", cl, m)
		}),
		kgo.OnPartitionsRevoked(func(_ context.Context, cl *kgo.Client, m map[string][]int32) {
			g.record(name, "revoked", cl, m)
		}),
		kgo.OnPartitionsLost(func(_ context.Context, cl *kgo.Client, m map[string][]int32) {
			g.record(name, "lost", cl, m)
		}),
	)
	if err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for pctx.Err() == nil {
			cl.PollFetches(pctx)
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		cl.Close()
	})
	return cl
}

// waitRack polls cond every 20 ms until it holds, then requires it to
// keep holding with no new balance for quiet (the group settled).
func waitRack(t *testing.T, ctx context.Context, g *rackGroup, quiet time.Duration, what string, cond func() bool) {
	t.Helper()
	var since time.Time
	seen := -1
	for {
		_, reports := g.snapshot()
		switch {
		case !cond() || len(reports) != seen:
			since, seen = time.Now(), len(reports)
		case time.Since(since) >= quiet:
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not settled: %v\n%s", what, ctx.Err(), g.ledger.History())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// rackOfMember is where both realignment tests put their members.
var rackOfMember = map[string]string{"a": "az1", "b": "az2", "c": "az3"}

// aligned returns a condition for waitRack: all partitions owned, each
// on one of its owner's racks.
func (g *rackGroup) aligned(rc *rackCluster, partitions int) func() bool {
	return func() bool {
		owners := g.ledger.Owners()
		if len(owners) != partitions {
			return false
		}
		for tp, m := range owners {
			if !rc.onRack(tp, rackOfMember[m]) {
				return false
			}
		}
		return true
	}
}

// checkRealigned checks the rebalances recorded from the from'th event on:
// no partition ever had two owners, every plan was assignd's, and each
// misaligned partition's whole trail is one revocation from its owner
// (owner[tp]) followed by one assignment on its rack in the very next
// generation (KIP-881 realignment).
func checkRealigned(t *testing.T, rc *rackCluster, g *rackGroup, from int, owner map[grouplab.TP]string, misaligned []grouplab.TP) {
	t.Helper()
	events, reports := g.snapshot()
	if p := g.ledger.Problems(); len(p) > 0 {
		t.Errorf("ownership violations:\n%v\n%s", p, g.ledger.History())
	}
	for _, r := range reports {
		if r.Source != client.SourceService {
			t.Errorf("generation %d: the shim fell back (%s: %v); the test is about assignd's plans", r.Generation, r.Reason, r.Err)
		}
	}
	for _, tp := range misaligned {
		var trail []rackEvent
		for _, e := range events[from:] {
			if slices.Contains(e.tps, tp) {
				trail = append(trail, e)
			}
		}
		ok := len(trail) == 2 &&
			trail[0].member == owner[tp] && trail[0].kind == "revoked" &&
			trail[1].kind == "assigned" && rc.onRack(tp, rackOfMember[trail[1].member]) &&
			trail[1].gen == trail[0].gen+1
		if !ok {
			t.Errorf("%s (racks %v, owner %s): want revoked and assigned on its rack in the next generation, got %+v", tp, rc.racksOf(tp), owner[tp], trail)
		}
	}
}

// TestE2ERackRealignment runs real franz-go members (kgo.Rack) through
// the shim and a real assignd on a kfake that looks rack-aware (issue 11):
// a member alone on az1 owns every partition, a third of them off its
// rack (replicas on az2 and az3 only); then members on az2 and az3 join.
// Under COOPERATIVE each misaligned partition must be revoked from its
// off-rack owner in one round and assigned on its rack by the very next
// generation (KIP-881 realignment, one follow-up, never through a third
// member), no partition may ever have two owners, and at the end every
// partition is on its rack.
func TestE2ERackRealignment(t *testing.T) {
	const topic, partitions = "rk", 12
	ctx, rc := startRackCluster(t, topic, partitions)
	addr := shimtest.ServeAssignd(t)
	g := &rackGroup{ledger: grouplab.NewLedger()}
	all := grouplab.AllPartitions(map[string]int32{topic: partitions})

	startRackMember(t, ctx, rc, g, addr, topic, "a", rackOfMember["a"])
	waitRack(t, ctx, g, 300*time.Millisecond, "a alone", func() bool { return g.ledger.OwnedBy("a").Equal(all) })
	var misaligned []grouplab.TP
	for _, tp := range all.Sorted() {
		if !rc.onRack(tp, rackOfMember["a"]) {
			misaligned = append(misaligned, tp)
		}
	}
	if len(misaligned) == 0 || len(misaligned) == partitions {
		t.Fatalf("kfake's leaders give a %d of %d partitions off az1: the scenario needs some but not all", len(misaligned), partitions)
	}
	before, _ := g.snapshot()
	joinedAt := len(before)

	startRackMember(t, ctx, rc, g, addr, topic, "b", rackOfMember["b"])
	startRackMember(t, ctx, rc, g, addr, topic, "c", rackOfMember["c"])
	waitRack(t, ctx, g, 600*time.Millisecond, "b and c joined", g.aligned(rc, partitions))

	owner := map[grouplab.TP]string{}
	for _, tp := range misaligned {
		owner[tp] = "a"
	}
	checkRealigned(t, rc, g, joinedAt, owner, misaligned)
	owners := g.ledger.Owners()
	for _, tp := range all.Sorted() {
		if m := owners[tp]; !rc.onRack(tp, rackOfMember[m]) {
			t.Errorf("%s ends on %s (%s), off its racks %v", tp, m, rackOfMember[m], rc.racksOf(tp))
		}
	}
	if t.Failed() {
		t.Logf("ledger:\n%s", g.ledger.History())
	}
}

// TestE2ERackRealignmentAfterReassignment: a group of three members on
// az1..az3 is aligned, then a reassignment moves a partition of a to az2
// and one of b to az1, leaving both off their owners' racks and the
// counts balanced. A rebalance under the policy parameter
// keep_misaligned_racks: true leaves them with their owners; after the
// policy switches to realignment the next rebalance must realign by
// trades alone (KIP-881): each misaligned partition revoked from its owner
// in that round and assigned on its rack in the next generation, no two
// owners, the counts unchanged and every partition on its rack at the end.
func TestE2ERackRealignmentAfterReassignment(t *testing.T) {
	const topic, partitions = "rk", 12
	ctx, rc := startRackCluster(t, topic, partitions)
	sel := newKeepSwitch(t)
	addr := shimtest.ServeSelector(t, sel)
	g := &rackGroup{ledger: grouplab.NewLedger()}
	aligned := g.aligned(rc, partitions)
	var clients []*kgo.Client
	for _, m := range []string{"a", "b", "c"} {
		clients = append(clients, startRackMember(t, ctx, rc, g, addr, topic, m, rackOfMember[m]))
	}
	waitRack(t, ctx, g, 400*time.Millisecond, "a, b and c", aligned)
	counts := g.ledger.Counts()

	// One partition of a moves to az2 only and one of b to az1 only: each
	// is now off its owner's rack and on the other's, a trade.
	before := g.ledger.Owners()
	pa, pb := g.ledger.OwnedBy("a").Sorted()[0], g.ledger.OwnedBy("b").Sorted()[0]
	rc.move(t, topic, pa.Partition, rc.nodes[1])
	rc.move(t, topic, pb.Partition, rc.nodes[0])
	misaligned := []grouplab.TP{pa, pb}
	// The leader balances on its cached metadata: every member reads the
	// moved racks before the rebalance is forced.
	for _, cl := range clients {
		cl.ForceMetadataRefresh()
	}
	for rc.served.Load() < int32(len(clients)) {
		select {
		case <-ctx.Done():
			t.Fatalf("metadata with the moved replicas served %d times", rc.served.Load())
		case <-time.After(20 * time.Millisecond):
		}
	}
	// Under keep_misaligned_racks the forced rebalance moves nothing:
	// both stay off their racks with their owners.
	sel.keep.Store(true)
	_, reports := g.snapshot()
	clients[0].ForceRebalance()
	waitRack(t, ctx, g, 600*time.Millisecond, "kept after the move", func() bool {
		_, rs := g.snapshot()
		return len(rs) > len(reports) && maps.Equal(g.ledger.Owners(), before)
	})

	// The policy switches to realignment (the default); the next
	// rebalance brings both home.
	sel.keep.Store(false)
	events, _ := g.snapshot()
	forcedAt := len(events)
	clients[0].ForceRebalance()
	waitRack(t, ctx, g, 600*time.Millisecond, "realigned after the move", aligned)

	checkRealigned(t, rc, g, forcedAt, before, misaligned)
	if after := g.ledger.Counts(); !maps.Equal(after, counts) {
		t.Errorf("counts %v, want %v unchanged (realignment trades)", after, counts)
	}
	if t.Failed() {
		t.Logf("ledger:\n%s", g.ledger.History())
	}
}

// keepSwitch selects cooperative-sticky with keep_misaligned_racks while
// keep is set and with realignment (the default policy) otherwise.
type keepSwitch struct {
	keep          atomic.Bool
	kept, realign selection.Selector
}

func newKeepSwitch(t *testing.T) *keepSwitch {
	t.Helper()
	p, err := policy.Parse("keep.yaml", []byte(`version: 1
rules:
  - name: keep
    match: {protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    params: {keep_misaligned_racks: true}
`))
	if err != nil {
		t.Fatal(err)
	}
	src := policytest.ServePolicy(t, p, policy.WithLogger(shimtest.Quiet))
	return &keepSwitch{kept: src, realign: selection.Default()}
}

func (k *keepSwitch) Select(ctx context.Context, q selection.Query) (selection.Selection, error) {
	if k.keep.Load() {
		return k.kept.Select(ctx, q)
	}
	return k.realign.Select(ctx, q)
}
