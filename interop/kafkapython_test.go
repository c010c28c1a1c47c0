//go:build unix

package interop

import (
	"bytes"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/assignd/assignd/client/kgoassign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

var pyTopics = map[string]int32{"orders": 12, "audit": 6}

// TestKafkaPythonLeaderWithShimMembers runs a cooperative-sticky group led
// by a kafka-python 3.x consumer on assignd.CooperativeStickyAssignor
// (client/python), with two franz-go members on the kgoassign shim, and
// checks that:
//
//  1. the plan the kafka-python leader sent in SyncGroup is assignd's
//     answer for the same members, each member owns what it gave, every
//     partition is consumed exactly once, and the leader counted no
//     fallback;
//  2. a franz-go member leaving moves only its own partitions, again as
//     assignd planned it;
//  3. with assignd down, a member joining is taken in by the leader's
//     fallback (kafka-python's own cooperative-sticky), counted as such;
//  4. no plan ever gave a partition to one member while another still
//     owned it (KIP-429), as the broker saw the JoinGroups and SyncGroups.
func TestKafkaPythonLeaderWithShimMembers(t *testing.T) {
	py := requirePython(t)
	names := slices.Sorted(maps.Keys(pyTopics))
	all := allPartitions(pyTopics)
	cluster, watch := startBroker(t, pyTopics)
	brokers := cluster.Seeds()
	ad := startAssignd(t)
	c := newAssigndClient(t, ad)
	led := newLedger()
	group := cluster.Group("kafka-python-leader")
	cfg := pyConfig{python: py, brokers: brokers, assignd: ad.addr, group: group, topics: names, protocol: "cooperative-sticky"}

	// The first member of an empty group leads it, and stays leader while
	// it stays in the group.
	lead := startKafkaPython(t, "python-a", cfg, led)
	waitSettled(t, led, 90*time.Second, "python-a to own every partition alone",
		running(t, func() bool { return led.Covers(all, []string{"python-a"}) }, lead), countsOf(led))

	f1 := startFranz(t, "franz-1", brokers, group, names, led, kgoassign.CooperativeSticky(c))
	f2 := startFranz(t, "franz-2", brokers, group, names, led, kgoassign.CooperativeSticky(c))
	three := []string{"python-a", "franz-1", "franz-2"}
	waitSettled(t, led, 90*time.Second, "the three members to share the partitions evenly",
		running(t, func() bool { return led.Covers(all, three) && balanced(led, three, len(all)) }, lead), countsOf(led))
	ids := map[string]string{"python-a": lead.id(), "franz-1": f1.id(), "franz-2": f2.id()}
	assertPythonLedByAssignd(t, ad, watch, led, lead, group, ids)
	checkPhase(t, led, produceMarkers(t, brokers, pyTopics, "three", 2), 30*time.Second)

	// franz-2 leaves: under cooperative-sticky only its partitions move.
	before := snapshot(led, three)
	f2.stop()
	two := []string{"python-a", "franz-1"}
	waitSettled(t, led, 90*time.Second, "the two remaining members to share the partitions evenly",
		running(t, func() bool { return led.Covers(all, two) && balanced(led, two, len(all)) }, lead), countsOf(led))
	assertOnlyLeaverMoved(t, before, snapshot(led, two), "franz-2")
	delete(ids, "franz-2")
	assertPythonLedByAssignd(t, ad, watch, led, lead, group, ids)
	checkPhase(t, led, produceMarkers(t, brokers, pyTopics, "two", 2), 30*time.Second)

	// assignd down: a franz-go member joins, the kafka-python leader falls
	// back to kafka-python's own cooperative-sticky, counted, and the group
	// still converges.
	ad.stop()
	callsBefore := len(ad.callsFor(group))
	statsBefore := lead.last().Stats
	f3 := startFranz(t, "franz-3", brokers, group, names, led, kgoassign.CooperativeSticky(c))
	withF3 := []string{"python-a", "franz-1", "franz-3"}
	waitSettled(t, led, 90*time.Second, "the group to take franz-3 in while assignd is down",
		running(t, func() bool { return led.Covers(all, withF3) && balanced(led, withF3, len(all)) }, lead), countsOf(led))
	if n := len(ad.callsFor(group)); n != callsBefore {
		t.Errorf("assignd was down but recorded %d more calls", n-callsBefore)
	}
	statsAfter := lead.last().Stats
	fellBack := statsAfter["unavailable"] + statsAfter["deadline_exceeded"] - statsBefore["unavailable"] - statsBefore["deadline_exceeded"]
	if fellBack == 0 || statsAfter["assignd"] != statsBefore["assignd"] {
		t.Errorf("with assignd down the leader's counters went from %v to %v; want fallbacks only", statsBefore, statsAfter)
	}
	if last := assertOwnershipIsPlan(t, watch, led, map[string]string{"python-a": lead.id(), "franz-1": f1.id(), "franz-3": f3.id()}); last.leader != lead.id() {
		t.Errorf("the fallback plan was sent by %s, not by the kafka-python leader %s", last.leader, lead.id())
	}
	checkPhase(t, led, produceMarkers(t, brokers, pyTopics, "fallback", 2), 30*time.Second)

	checkCooperativePlans(t, watch)
	if g := lead.garbage(); len(g) > 0 {
		t.Errorf("python-a printed non-event lines on stdout: %q", g)
	}
	if vs := led.Problems(); len(vs) > 0 {
		t.Errorf("ownership violations:\n%v\ntimeline:\n%s", vs, led.History())
	}
}

// assertPythonLedByAssignd checks that the group's current assignment is
// assignd's answer to the kafka-python leader: the leader's last SyncGroup
// plan gives each member exactly the partitions assignd's last response
// for these members gave it (its encoded bytes), the members own them, the
// request was the raw member form of a COOPERATIVE cooperative-sticky group
// asking for the encoded view, and the leader's assignor counted only plans
// from assignd.
func assertPythonLedByAssignd(t *testing.T, ad *assigndServer, w *groupWatch, led *ledger, leader *pyMember, group string, ids map[string]string) {
	t.Helper()
	st := leader.last()
	if !st.Leader || st.MemberID == "" {
		t.Fatalf("%s is not the group leader (its last state: %+v)", leader.name, st)
	}
	last := assertOwnershipIsPlan(t, w, led, ids)
	if last.leader != st.MemberID {
		t.Fatalf("the last plan was sent by %s, not by the kafka-python leader %s", last.leader, st.MemberID)
	}
	resp, err := ad.responseFor(group, slices.Collect(maps.Values(ids)))
	if err != nil {
		t.Fatalf("assignd has no answer for members %v: %v", ids, err)
	}
	// The leader decodes assignd's encoded assignments into kafka-python's
	// objects, which kafka-python encodes for SyncGroup: the same bytes.
	plan := decodePlan(t, last)
	for _, ma := range resp.GetAssignments() {
		if !bytes.Equal(last.plan[ma.GetMemberId()], ma.GetAssignment()) {
			t.Errorf("member %s: the kafka-python leader sent %s (%x), assignd answered %x",
				ma.GetMemberId(), plan[ma.GetMemberId()], last.plan[ma.GetMemberId()], ma.GetAssignment())
		}
	}
	calls := ad.callsFor(group)
	req := calls[len(calls)-1].req
	if req.GetProtocolName() != "cooperative-sticky" || req.GetRebalanceProtocol() != assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE {
		t.Errorf("the kafka-python leader asked for protocol %q, %v; want cooperative-sticky, COOPERATIVE",
			req.GetProtocolName(), req.GetRebalanceProtocol())
	}
	if req.GetView() != assigndv1.AssignmentView_ASSIGNMENT_VIEW_ENCODED {
		t.Errorf("the kafka-python leader asked for the %v view; want ASSIGNMENT_VIEW_ENCODED", req.GetView())
	}
	for _, m := range req.GetMembers() {
		if len(m.GetMetadata()) == 0 || len(m.GetTopics()) != 0 {
			t.Errorf("member %s was not sent in the raw form (metadata %d bytes, topics %v)", m.GetMemberId(), len(m.GetMetadata()), m.GetTopics())
		}
	}
	if st.Stats["assignd"] == 0 || len(st.Stats) != 1 {
		t.Errorf("the leader's assignor counted %v; want plans from assignd only", st.Stats)
	}
}

// TestKafkaPythonMemberInShimLedGroup runs a plain kafka-python 3.x
// consumer (its built-in cooperative-sticky, no assignd) as a member of a
// cooperative-sticky group led by a franz-go member on the kgoassign shim.
func TestKafkaPythonMemberInShimLedGroup(t *testing.T) {
	py := requirePython(t)
	testMembersInShimLedGroup(t, "kafka-python-member", pyConfig{python: py, protocol: "cooperative-sticky"}, "python-b")
}

// TestConfluentKafkaMembersInShimLedGroup runs two confluent-kafka 2.x
// consumers (librdkafka bundled in the wheel, its own cooperative-sticky)
// as members of a cooperative-sticky group led by the kgoassign shim.
func TestConfluentKafkaMembersInShimLedGroup(t *testing.T) {
	py := requirePython(t)
	testMembersInShimLedGroup(t, "confluent-kafka-members",
		pyConfig{python: py, script: confluentKafkaMember, protocol: "cooperative-sticky"}, "confluent-b", "confluent-c")
}

// testMembersInShimLedGroup runs a cooperative-sticky group led by a
// franz-go member on the kgoassign shim, with the Python members named
// (the last one leaves) and a second franz-go member, and checks that the
// Python members accept the shim's plans (each owns what the last plan gave
// it, every record is consumed once by its partition's owner), that the
// last one's leaving (LeaveGroup on SIGTERM) moves only its partitions, and
// that no plan gave a partition still owned elsewhere (KIP-429).
func testMembersInShimLedGroup(t *testing.T, groupName string, cfg pyConfig, pyNames ...string) {
	t.Helper()
	names := slices.Sorted(maps.Keys(pyTopics))
	all := allPartitions(pyTopics)
	cluster, watch := startBroker(t, pyTopics)
	cfg.brokers, cfg.topics, cfg.group = cluster.Seeds(), names, cluster.Group(groupName)
	ad := startAssignd(t)
	c := newAssigndClient(t, ad)
	led := newLedger()

	lead := startFranz(t, "franz-1", cfg.brokers, cfg.group, names, led, kgoassign.CooperativeSticky(c))
	waitSettled(t, led, 60*time.Second, "franz-1 to own every partition alone",
		func() bool { return led.Covers(all, []string{"franz-1"}) }, countsOf(led))
	var pms []*pyMember
	for _, n := range pyNames {
		pms = append(pms, startKafkaPython(t, n, cfg, led))
	}
	f2 := startFranz(t, "franz-2", cfg.brokers, cfg.group, names, led, kgoassign.CooperativeSticky(c))
	everyone := append([]string{"franz-1", "franz-2"}, pyNames...)
	waitSettled(t, led, 90*time.Second, "every member to share the partitions evenly",
		running(t, func() bool { return led.Covers(all, everyone) && balanced(led, everyone, len(all)) }, pms...), countsOf(led))
	ids := map[string]string{"franz-1": lead.id(), "franz-2": f2.id()}
	for _, m := range pms {
		ids[m.name] = m.id()
	}
	if last := assertOwnershipIsPlan(t, watch, led, ids); last.leader != lead.id() {
		t.Errorf("the last plan was sent by %s, not by the shim leader %s", last.leader, lead.id())
	}
	if len(ad.callsFor(cfg.group)) == 0 {
		t.Error("the shim leader never called assignd")
	}
	checkPhase(t, led, produceMarkers(t, cfg.brokers, pyTopics, "all", 2), 30*time.Second)

	leaver := pms[len(pms)-1]
	before := snapshot(led, everyone)
	if err := leaver.p.stop(20 * time.Second); err != nil {
		t.Fatal(err)
	}
	if !watch.left(ids[leaver.name]) {
		t.Errorf("%s exited without LeaveGroup", leaver.name)
	}
	rest := slices.DeleteFunc(slices.Clone(everyone), func(n string) bool { return n == leaver.name })
	waitSettled(t, led, 90*time.Second, "the remaining members to share the partitions evenly",
		running(t, func() bool { return led.Covers(all, rest) && balanced(led, rest, len(all)) }, pms[:len(pms)-1]...), countsOf(led))
	assertOnlyLeaverMoved(t, before, snapshot(led, rest), leaver.name)
	checkPhase(t, led, produceMarkers(t, cfg.brokers, pyTopics, "rest", 2), 30*time.Second)

	checkCooperativePlans(t, watch)
	for _, m := range pms {
		if g := m.garbage(); len(g) > 0 {
			t.Errorf("%s printed non-event lines on stdout: %q", m.name, g)
		}
	}
	if vs := led.Problems(); len(vs) > 0 {
		t.Errorf("ownership violations:\n%v\ntimeline:\n%s", vs, led.History())
	}
}
