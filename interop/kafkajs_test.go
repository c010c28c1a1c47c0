//go:build unix

package interop

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/assignd/assignd/assign/wire"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// TestKafkaJSLeaderWithFranzMembers runs an eager "sticky" group of two
// KafkaJS consumers (examples/node) and two native franz-go sticky members
// and checks, step by step:
//
//  1. the KafkaJS leader's assignments are assignd's (the plan it sent in
//     SyncGroup is byte for byte assignd's response, and assignd logged the
//     calls), every partition is consumed by exactly one member;
//  2. a KafkaJS member leaving moves only its own partitions;
//  3. with assignd down, the KafkaJS leader falls back to its local sticky
//     assignment and the group keeps consuming; with assignd back, the
//     leader uses it again.
func TestKafkaJSLeaderWithFranzMembers(t *testing.T) {
	requireNode(t)
	topics := map[string]int32{"orders": 12, "audit": 6}
	names := slices.Sorted(maps.Keys(topics))
	all := allPartitions(topics)
	cluster, watch := startBroker(t, topics)
	brokers := cluster.Seeds()
	ad := startAssignd(t)
	led := newLedger()
	const group = "kafkajs-mixed"
	cfg := kafkajsConfig{brokers: brokers, assignd: ad.addr, group: group, topics: names, protocols: []string{"sticky"}}

	// kfake makes the first member of an empty group its leader, and a
	// leader stays leader while it stays in the group.
	a := startKafkaJS(t, "kafkajs-a", cfg, led)
	waitSettled(t, led, 60*time.Second, "kafkajs-a to own every partition alone",
		func() bool { return led.Covers(all, []string{"kafkajs-a"}) })

	b := startKafkaJS(t, "kafkajs-b", cfg, led)
	f1 := startFranz(t, "franz-1", brokers, group, names, led, &remembering{GroupBalancer: kgo.StickyBalancer()})
	f2 := startFranz(t, "franz-2", brokers, group, names, led, &remembering{GroupBalancer: kgo.StickyBalancer()})
	four := []string{"kafkajs-a", "kafkajs-b", "franz-1", "franz-2"}
	waitSettled(t, led, 60*time.Second, "the four members to share the partitions evenly",
		func() bool { return led.Covers(all, four) && balanced(led, four, len(all)) }, countsOf(led))

	ids := func() map[string]string {
		return map[string]string{"kafkajs-a": a.id(), "kafkajs-b": b.id(), "franz-1": f1.id(), "franz-2": f2.id()}
	}
	assertLedByAssignd(t, ad, watch, led, a, group, ids())
	checkPhase(t, led, produceMarkers(t, brokers, topics, "four", 2), 30*time.Second)

	// A KafkaJS member leaves: under sticky only its partitions move.
	before := snapshot(led, four)
	syncs := watch.leaderSyncs()
	genFour := syncs[len(syncs)-1].generation
	if err := b.p.stop(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	if !watch.left(b.id()) {
		t.Errorf("kafkajs-b exited without LeaveGroup")
	}
	three := []string{"kafkajs-a", "franz-1", "franz-2"}
	waitSettled(t, led, 60*time.Second, "the three remaining members to share the partitions evenly",
		func() bool { return led.Covers(all, three) && balanced(led, three, len(all)) }, countsOf(led))
	after := snapshot(led, three)
	assertOnlyLeaverMoved(t, before, after, "kafkajs-b")
	assertKafkaJSReportedHistory(t, watch, a, before["kafkajs-a"], genFour)
	delete(before, "kafkajs-b")
	threeIDs := ids()
	delete(threeIDs, "kafkajs-b")
	assertLedByAssignd(t, ad, watch, led, a, group, threeIDs)
	checkPhase(t, led, produceMarkers(t, brokers, topics, "three", 2), 30*time.Second)

	// assignd down: a new KafkaJS member joins, the leader falls back.
	ad.stop()
	callsBefore := len(a.eventsOf("assign"))
	c := startKafkaJS(t, "kafkajs-c", cfg, led)
	withC := []string{"kafkajs-a", "kafkajs-c", "franz-1", "franz-2"}
	waitSettled(t, led, 60*time.Second, "the group to take kafkajs-c in while assignd is down",
		func() bool { return led.Covers(all, withC) && balanced(led, withC, len(all)) }, countsOf(led))
	fellBack := a.eventsOf("assign")[callsBefore:]
	if len(fellBack) == 0 {
		t.Fatal("kafkajs-a led no rebalance while assignd was down")
	}
	for _, e := range fellBack {
		if e.Source != "fallback" {
			t.Errorf("with assignd down, kafkajs-a's assignment came from %q, want the fallback", e.Source)
		}
	}
	checkPhase(t, led, produceMarkers(t, brokers, topics, "fallback", 2), 30*time.Second)

	// assignd back: the next rebalance is assignd's again.
	ad.restart()
	callsBefore = len(a.eventsOf("assign"))
	if err := c.p.stop(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitSettled(t, led, 60*time.Second, "the group to settle after kafkajs-c left",
		func() bool { return led.Covers(all, three) && balanced(led, three, len(all)) }, countsOf(led))
	back := a.eventsOf("assign")[callsBefore:]
	if len(back) == 0 || back[len(back)-1].Source != "assignd" {
		t.Errorf("after assignd restarted, kafkajs-a's last assignment events are %+v, want the last from assignd", back)
	}
	assertLedByAssignd(t, ad, watch, led, a, group, threeIDs)

	checkPlansExclusive(t, watch, all, true)
	for _, m := range []*kafkajsMember{a, b, c} {
		if g := m.garbage(); len(g) > 0 {
			t.Errorf("%s printed non-event lines on stdout: %q", m.name, g)
		}
	}
	if vs := led.Problems(); len(vs) > 0 {
		t.Errorf("ownership violations:\n%v\ntimeline:\n%s", vs, led.History())
	}
}

// assertLedByAssignd checks that the group's current assignment is
// assignd's answer to the KafkaJS leader: the leader's last SyncGroup plan
// is byte for byte what assignd returned for the same members, each member
// owns what that plan gave it, and assignd's call log shows the calls.
func assertLedByAssignd(t *testing.T, ad *assigndServer, w *groupWatch, led *ledger, leader *kafkajsMember, group string, ids map[string]string) {
	t.Helper()
	j, _ := leader.lastJoin()
	if !j.IsLeader || j.LeaderID != j.MemberID {
		t.Fatalf("%s is not the group leader (its last join: %+v)", leader.name, j)
	}
	resp, err := ad.responseFor(group, slices.Collect(maps.Values(ids)))
	if err != nil {
		t.Fatalf("assignd has no answer for members %v: %v", ids, err)
	}
	syncs := w.leaderSyncs()
	last := syncs[len(syncs)-1]
	if last.leader != j.MemberID {
		t.Fatalf("the last plan was sent by %s, not by the KafkaJS leader %s", last.leader, j.MemberID)
	}
	calls := ad.callsFor(group)
	req := calls[len(calls)-1].req
	if req.GetProtocolName() != "sticky" || req.GetRebalanceProtocol() != assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER || req.GetLeaderId() != j.MemberID {
		t.Errorf("the KafkaJS leader asked for protocol %q, %v, leader %q; want sticky, EAGER, %q",
			req.GetProtocolName(), req.GetRebalanceProtocol(), req.GetLeaderId(), j.MemberID)
	}
	if req.GetView() != assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED {
		t.Errorf("the KafkaJS leader asked for view %v; it only forwards the encoded assignments", req.GetView())
	}
	byID := make(map[string]*assigndv1.MemberAssignment)
	for _, ma := range resp.GetAssignments() {
		byID[ma.GetMemberId()] = ma
	}
	for name, id := range ids {
		ma := byID[id]
		if !bytes.Equal(last.plan[id], ma.GetAssignment()) {
			t.Errorf("%s (%s): the leader sent %x, assignd answered %x", name, id, last.plan[id], ma.GetAssignment())
		}
		if owned, gave := led.OwnedBy(name), setOfAssignment(t, ma.GetAssignment()); !owned.Equal(gave) {
			t.Errorf("%s owns %s, but assignd gave it %s", name, owned, gave)
		}
	}
	if n := ad.loggedAssigns(group); n == 0 {
		t.Error("assignd's call log has no Assign line for the group")
	}
}

// assertKafkaJSReportedHistory checks the subscription the KafkaJS member
// sent in its last JoinGroup: version 0, as KafkaJS writes it, with
// StickyAssignorUserData V1 naming the partitions it had and the generation
// they were assigned in (learned from KafkaJS's events, see
// examples/node/src/member.js).
func assertKafkaJSReportedHistory(t *testing.T, w *groupWatch, m *kafkajsMember, had tpSet, gen int32) {
	t.Helper()
	joins := w.joinsOf(m.id())
	if len(joins) == 0 {
		t.Fatalf("the broker saw no JoinGroup from %s", m.name)
	}
	sub, err := wire.DecodeSubscription(joins[len(joins)-1].protocols["sticky"])
	if err != nil {
		t.Fatalf("%s's subscription does not decode: %v", m.name, err)
	}
	ud, err := wire.DecodeStickyUserData(sub.UserData)
	if err != nil {
		t.Fatalf("%s's sticky user data does not decode: %v", m.name, err)
	}
	if sub.Version != 0 || !setOf(ud.Previous).Equal(had) || ud.Generation != gen {
		t.Errorf("%s rejoined with subscription v%d, previous %s of generation %d; want v0, %s of generation %d",
			m.name, sub.Version, setOf(ud.Previous), ud.Generation, had, gen)
	}
}

// balanced reports whether members own floor or ceil of total/len(members)
// partitions each.
func balanced(led *ledger, members []string, total int) bool {
	c := led.Counts()
	lo := total / len(members)
	hi := lo
	if total%len(members) != 0 {
		hi++
	}
	for _, m := range members {
		if c[m] < lo || c[m] > hi {
			return false
		}
	}
	return true
}

// snapshot copies what each member owns.
func snapshot(led *ledger, members []string) map[string]tpSet {
	out := make(map[string]tpSet, len(members))
	for _, m := range members {
		out[m] = led.OwnedBy(m)
	}
	return out
}

// assertOnlyLeaverMoved checks a sticky rebalance after leaver left: every
// member that stayed kept all it had, and what it gained is exactly what
// the leaver had.
func assertOnlyLeaverMoved(t *testing.T, before, after map[string]tpSet, leaver string) {
	t.Helper()
	gained := make(tpSet)
	for m, now := range after {
		if lost := before[m].Minus(now); len(lost) > 0 {
			t.Errorf("%s stayed but lost %s", m, lost)
		}
		for p := range now.Minus(before[m]) {
			gained[p] = struct{}{}
		}
	}
	if !gained.Equal(before[leaver]) {
		t.Errorf("partitions that moved %s, want exactly %s's %s", gained, leaver, before[leaver])
	}
}

// setOfAssignment decodes the partitions of an encoded assignment.
func setOfAssignment(t *testing.T, b []byte) tpSet {
	t.Helper()
	a, err := wire.DecodeAssignment(b)
	if err != nil {
		t.Fatalf("decoding an assignment assignd returned: %v", err)
	}
	s := make(tpSet)
	for _, tps := range a.Partitions {
		for _, p := range tps.Partitions {
			s[tp{Topic: tps.Topic, Partition: p}] = struct{}{}
		}
	}
	return s
}

func countsOf(led *ledger) func() string {
	return func() string { return fmt.Sprintf("partitions per member: %v", led.Counts()) }
}
