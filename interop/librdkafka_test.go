//go:build unix

package interop

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	"github.com/assignd/assignd/testbed/grouplab"
)

// The topics of the librdkafka tests: two, of different sizes, so that a
// plan balanced by total alone would show.
var rdTopics = map[string]int32{"orders": 12, "audit": 6}

// shimMember starts a franz-go member whose balancer is the kgoassign shim
// (cooperative-sticky), recording the source of every balance it led.
func shimMember(t *testing.T, name, broker, group string, c *client.Client, led *ledger, reports *shimReports) *franzMember {
	t.Helper()
	bal := kgoassign.CooperativeSticky(c, kgoassign.WithObserver(reports.add))
	return startFranz(t, name, []string{broker}, group, slices.Sorted(maps.Keys(rdTopics)), led, bal)
}

// shimReports collects the balances shim members led.
type shimReports struct {
	mu sync.Mutex
	rs []kgoassign.Report
}

func (s *shimReports) add(r kgoassign.Report) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rs = append(s.rs, r)
}

func (s *shimReports) all() []kgoassign.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.rs)
}

// newAssigndClient connects the shim to the test's assignd.
func newAssigndClient(t *testing.T, ad *assigndServer) *client.Client {
	t.Helper()
	c, err := client.New(ad.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestLibrdkafkaMembersInShimLedGroup runs a cooperative-sticky group of
// two shim members (one of them the leader throughout) and three kcat
// members, then restarts the kcat members one at a time. At every step:
// librdkafka accepted every assignment (each member owns what the plan
// gave it and consumes its partitions), nothing was owned twice (client
// timeline and broker view), each membership change took at most one
// follow-up rebalance, and only the restarting member's partitions moved.
// Finally it decodes what librdkafka sent in JoinGroup.
// rdGroup is the bench of a librdkafka test: a broker with rdTopics
// (watched), assignd and a client for it, a ledger, the shim members'
// reports, and the kcat members' configuration for the group.
type rdGroup struct {
	all     tpSet
	cluster *grouplab.Broker
	broker  string
	watch   *groupWatch
	ad      *assigndServer
	client  *client.Client
	led     *ledger
	reports *shimReports
	kcfg    kcatConfig
}

func startRdGroup(t *testing.T, group string) rdGroup {
	t.Helper()
	version := requireKcat(t)
	t.Logf("kcat: %s", version)
	cluster, watch := startBroker(t, rdTopics)
	broker := cluster.Seeds()[0]
	ad := startAssignd(t)
	return rdGroup{
		all: allPartitions(rdTopics), cluster: cluster, broker: broker, watch: watch, ad: ad, client: newAssigndClient(t, ad),
		led: newLedger(), reports: new(shimReports),
		kcfg: kcatConfig{broker: broker, group: group, topics: slices.Sorted(maps.Keys(rdTopics)), strategy: "cooperative-sticky"},
	}
}

func TestLibrdkafkaMembersInShimLedGroup(t *testing.T) {
	const group = "librdkafka-shim-led"
	r := startRdGroup(t, group)
	all, broker, watch, ad, c, led, reports, kcfg := r.all, r.broker, r.watch, r.ad, r.client, r.led, r.reports, r.kcfg

	// The first member of an empty group leads while it stays (kfake and
	// Kafka alike).
	shim1 := shimMember(t, "shim-1", broker, group, c, led, reports)
	waitSettled(t, led, 30*time.Second, "shim-1 to own everything", func() bool { return led.Covers(all, []string{"shim-1"}) })
	shim2 := shimMember(t, "shim-2", broker, group, c, led, reports)
	kcats := map[string]*kcatMember{} // the running incarnation of each
	var incarnations []*kcatMember    // every kcat process started
	startKcatAs := func(name string) {
		k := startKcat(t, name, kcfg, led)
		kcats[name] = k
		incarnations = append(incarnations, k)
	}
	for _, name := range []string{"kcat-1", "kcat-2", "kcat-3"} {
		startKcatAs(name)
	}
	members := []string{"shim-1", "shim-2", "kcat-1", "kcat-2", "kcat-3"}
	waitSettled(t, led, 60*time.Second, "five members sharing the partitions evenly",
		func() bool { return led.Covers(all, members) && balanced(led, members, len(all)) }, countsOf(led))
	ids := func() map[string]string {
		m := map[string]string{"shim-1": shim1.id(), "shim-2": shim2.id()}
		for name, k := range kcats {
			m[name] = k.id()
		}
		return m
	}
	last := assertOwnershipIsPlan(t, watch, led, ids())
	if last.leader != shim1.id() {
		t.Fatalf("the plan came from %s, want the shim leader %s", last.leader, shim1.id())
	}
	checkPhase(t, led, produceMarkers(t, []string{broker}, rdTopics, "start", 2), 30*time.Second)

	// Rolling restart of the librdkafka members.
	for round, name := range []string{"kcat-1", "kcat-2", "kcat-3"} {
		stayers := slices.DeleteFunc(slices.Clone(members), func(m string) bool { return m == name })
		before := snapshot(led, members)

		mark := len(watch.leaderSyncs())
		kcats[name].stop(t, led)
		if !watch.left(kcats[name].id()) {
			t.Errorf("%s exited without LeaveGroup", name)
		}
		waitSettled(t, led, 60*time.Second, name+" gone and the rest sharing evenly",
			func() bool { return led.Covers(all, stayers) && balanced(led, stayers, len(all)) }, countsOf(led))
		leaveRounds := checkFollowupRules(t, watch, mark, all, name+" leaving")
		afterLeave := snapshot(led, stayers)
		assertOnlyLeaverMoved(t, before, afterLeave, name)

		mark = len(watch.leaderSyncs())
		startKcatAs(name)
		waitSettled(t, led, 60*time.Second, name+" back and everyone sharing evenly",
			func() bool { return led.Covers(all, members) && balanced(led, members, len(all)) }, countsOf(led))
		joinRounds := checkFollowupRules(t, watch, mark, all, name+" rejoining")
		t.Logf("restart of %s: %d rebalance(s) to leave, %d to rejoin", name, leaveRounds, joinRounds)
		assertOnlyJoinerGained(t, afterLeave, snapshot(led, members), name)

		assertOwnershipIsPlan(t, watch, led, ids())
		checkPhase(t, led, produceMarkers(t, []string{broker}, rdTopics, fmt.Sprintf("restart-%d", round+1), 2), 30*time.Second)
	}

	for _, r := range reports.all() {
		if r.Source != client.SourceService {
			t.Errorf("a shim leader's balance of generation %d came from %s (%s: %v), want assignd", r.Generation, r.Source, r.Reason, r.Err)
		}
	}
	if len(ad.callsFor(group)) == 0 || ad.loggedAssigns(group) == 0 {
		t.Error("assignd served no Assign call for the group")
	}
	checkCooperativePlans(t, watch)
	claims := 0
	for _, k := range incarnations {
		sub := checkLibrdkafkaSubscriptions(t, watch, k.id())
		t.Logf("%s (%s) sent subscription versions %v; %d claims checked, %d of them older than its last plan",
			k.name, k.id(), sub.versions, sub.claims, sub.lagging)
		claims += sub.claims
		if g := k.garbage(); len(g) > 0 {
			t.Errorf("%s printed lines that are not records on stdout: %q", k.name, g)
		}
	}
	if claims == 0 {
		t.Error("no librdkafka member ever rejoined owning partitions: its claims were never checked")
	}
	if vs := led.Problems(); len(vs) > 0 {
		t.Errorf("ownership violations:\n%v\ntimeline:\n%s", vs, led.History())
	}
}

// TestLibrdkafkaLeaderThenShimLeader runs the reverse: a kcat member leads
// a cooperative-sticky group with librdkafka's own assignor and three shim
// members accept its plan without asking assignd; then the kcat leader
// leaves, the shim members lead (kfake makes each of them leader of that
// generation, and all must send assignd's same answer; Kafka makes one of
// them leader), and assignd keeps
// librdkafka's plan: every shim member keeps all it had and takes only
// partitions of the member that left.
func TestLibrdkafkaLeaderThenShimLeader(t *testing.T) {
	const group = "librdkafka-led"
	r := startRdGroup(t, group)
	all, broker, watch, ad, c, led, reports, kcfg := r.all, r.broker, r.watch, r.ad, r.client, r.led, r.reports, r.kcfg

	leader := startKcat(t, "kcat-leader", kcfg, led)
	waitSettled(t, led, 30*time.Second, "the kcat leader to own everything", func() bool { return led.Covers(all, []string{"kcat-leader"}) })
	shims := map[string]*franzMember{}
	for _, name := range []string{"shim-1", "shim-2", "shim-3"} {
		shims[name] = shimMember(t, name, broker, group, c, led, reports)
	}
	members := []string{"kcat-leader", "shim-1", "shim-2", "shim-3"}
	waitSettled(t, led, 60*time.Second, "librdkafka's plan to settle over four members",
		func() bool { return led.Covers(all, members) && balanced(led, members, len(all)) }, countsOf(led))
	ids := map[string]string{"kcat-leader": leader.id()}
	for name, m := range shims {
		ids[name] = m.id()
	}
	last := assertOwnershipIsPlan(t, watch, led, ids)
	if last.leader != leader.id() {
		t.Fatalf("the plan came from %s, want the librdkafka leader %s", last.leader, leader.id())
	}
	if n := len(ad.callsFor(group)); n != 0 || len(reports.all()) != 0 {
		t.Errorf("while librdkafka led, assignd got %d calls and shim members led %d balances; want none", n, len(reports.all()))
	}
	checkPhase(t, led, produceMarkers(t, []string{broker}, rdTopics, "librdkafka-led", 2), 30*time.Second)

	before := snapshot(led, members)
	mark := len(watch.leaderSyncs())
	leader.stop(t, led)
	if !watch.left(leader.id()) {
		t.Error("the kcat leader exited without LeaveGroup")
	}
	shimNames := []string{"shim-1", "shim-2", "shim-3"}
	waitSettled(t, led, 60*time.Second, "the shim members to share the partitions evenly",
		func() bool { return led.Covers(all, shimNames) && balanced(led, shimNames, len(all)) }, countsOf(led))
	assertOnlyLeaverMoved(t, before, snapshot(led, shimNames), "kcat-leader")
	checkFollowupRules(t, watch, mark, all, "the librdkafka leader leaving")
	delete(ids, "kcat-leader")
	last = assertOwnershipIsPlan(t, watch, led, ids)
	shimIDs := make(map[string]bool)
	for _, id := range ids {
		shimIDs[id] = true
	}
	if !shimIDs[last.leader] {
		t.Fatalf("after the librdkafka leader left, the plan came from %s, not a shim member", last.leader)
	}
	multi := checkSameAnswer(t, watch, shimIDs)
	// Kafka's coordinator names one leader per generation, which is the
	// protocol; several are kfake's defect, harmless while they agree.
	if r.cluster.Kind() == grouplab.Kafka && multi != 0 {
		t.Errorf("%d generations had more than one shim leader on Kafka, which names one", multi)
	}
	t.Logf("generations with more than one shim leader (kfake's defect; none on Kafka): %d", multi)
	for _, r := range reports.all() {
		if r.Source != client.SourceService {
			t.Errorf("a shim leader's balance of generation %d came from %s (%s: %v), want assignd", r.Generation, r.Source, r.Reason, r.Err)
		}
	}
	checkPhase(t, led, produceMarkers(t, []string{broker}, rdTopics, "shim-led", 2), 30*time.Second)

	checkCooperativePlans(t, watch)
	sub := checkLibrdkafkaSubscriptions(t, watch, leader.id())
	t.Logf("the librdkafka leader sent subscription versions %v; %d claims checked", sub.versions, sub.claims)
	if vs := led.Problems(); len(vs) > 0 {
		t.Errorf("ownership violations:\n%v\ntimeline:\n%s", vs, led.History())
	}
}

// assertOnlyJoinerGained checks a cooperative rebalance after joiner
// joined: the members that stayed only gave partitions up, nothing moved
// between them, and everything they gave up went to the joiner.
func assertOnlyJoinerGained(t *testing.T, before, after map[string]tpSet, joiner string) {
	t.Helper()
	given := make(tpSet)
	for m, had := range before {
		now := after[m]
		if gained := now.Minus(had); len(gained) > 0 {
			t.Errorf("%s gained %s when %s joined", m, gained, joiner)
		}
		for p := range had.Minus(now) {
			given[p] = struct{}{}
		}
	}
	if !given.Equal(after[joiner]) {
		t.Errorf("%s got %s, but the others gave up %s", joiner, after[joiner], given)
	}
}
