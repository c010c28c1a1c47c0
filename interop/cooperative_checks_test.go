//go:build unix

package interop

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign/wire"
)

// checkCooperativePlans checks KIP-429's safety rule on every leader plan
// the broker saw, whoever the leader was: no partition is given to a member
// while another member of the same generation still reports owning it in
// the JoinGroup it sent for that generation. (The owner must revoke it
// first; the next generation, the follow-up, hands it over.)
func checkCooperativePlans(t *testing.T, w *groupWatch) {
	t.Helper()
	for _, s := range w.leaderSyncs() {
		plan := decodePlan(t, s)
		owners := make(map[tp]string)
		for member := range plan {
			meta, ok := w.lastJoinBefore(member, "cooperative-sticky", s.at)
			if !ok {
				t.Errorf("generation %d: member %s is in the plan but its JoinGroup was not seen", s.generation, member)
				continue
			}
			for p := range ownedInJoin(t, meta, "cooperative-sticky") {
				owners[p] = member
			}
		}
		for member, set := range plan {
			for p := range set {
				if o, ok := owners[p]; ok && o != member {
					t.Errorf("generation %d: leader %s gave %s to %s while %s still owned it", s.generation, s.leader, p, member, o)
				}
			}
		}
	}
}

// maxRebalancesPerChange bounds the rebalances of one membership change:
// the change, its follow-up, and room for follow-ups that a member's late
// report explains (see checkFollowupRules). More means the group loops.
const maxRebalancesPerChange = 4

// checkFollowupRules checks the rebalances of one membership change (the
// leader plans from index from on) against KIP-429, and returns how many
// there were:
//
//   - a rebalance follows only a plan that withheld partitions (pending:
//     taken from their owner, not yet given to anyone);
//   - a plan withholds a partition only while some member still reports
//     owning it in the JoinGroup it sent for that generation;
//   - the last plan withholds nothing.
//
// A follow-up therefore normally hands over everything the change took
// away, and one more is needed only when an owner rejoined still reporting
// a partition it had been told to give up. librdkafka does that when it
// rejoins before it has applied its last assignment.
func checkFollowupRules(t *testing.T, w *groupWatch, from int, all tpSet, what string) int {
	t.Helper()
	var gens []syncSeen // one plan per generation: the last one seen
	for _, s := range w.leaderSyncs()[from:] {
		if n := len(gens); n > 0 && gens[n-1].generation == s.generation {
			gens[n-1] = s
			continue
		}
		gens = append(gens, s)
	}
	if len(gens) == 0 {
		t.Errorf("%s caused no rebalance", what)
		return 0
	}
	if len(gens) > maxRebalancesPerChange {
		t.Errorf("%s took %d rebalances, more than %d:\n%s", what, len(gens), maxRebalancesPerChange, describePlans(t, w, gens))
	}
	for i, s := range gens {
		pending := all.Minus(givenIn(t, s))
		if i == len(gens)-1 {
			if len(pending) > 0 {
				t.Errorf("after %s the last plan (generation %d) still withholds %s:\n%s", what, s.generation, pending, describePlans(t, w, gens))
			}
			break
		}
		if len(pending) == 0 {
			t.Errorf("%s: generation %d withheld nothing, yet generation %d followed:\n%s",
				what, s.generation, gens[i+1].generation, describePlans(t, w, gens))
		}
		reported := make(tpSet)
		for member := range s.plan {
			if meta, ok := w.lastJoinBefore(member, "cooperative-sticky", s.at); ok {
				for p := range ownedInJoin(t, meta, "cooperative-sticky") {
					reported[p] = struct{}{}
				}
			}
		}
		if unexplained := pending.Minus(reported); len(unexplained) > 0 {
			t.Errorf("%s: generation %d withheld %s, which no member reported owning:\n%s",
				what, s.generation, unexplained, describePlans(t, w, gens))
		}
	}
	return len(gens)
}

// givenIn returns every partition a plan gives to someone.
func givenIn(t *testing.T, s syncSeen) tpSet {
	t.Helper()
	given := make(tpSet)
	for _, set := range decodePlan(t, s) {
		for p := range set {
			given[p] = struct{}{}
		}
	}
	return given
}

// assertOwnershipIsPlan checks that every member owns exactly what the
// last leader plan gave it: each member accepted the plan, whichever client
// led. ids maps the test's member names to member ids.
func assertOwnershipIsPlan(t *testing.T, w *groupWatch, led *ledger, ids map[string]string) syncSeen {
	t.Helper()
	syncs := w.leaderSyncs()
	last := syncs[len(syncs)-1]
	plan := decodePlan(t, last)
	if len(plan) != len(ids) {
		t.Errorf("generation %d: the plan names %d members, the group has %d (%v)", last.generation, len(plan), len(ids), ids)
	}
	for name, id := range ids {
		given, ok := plan[id]
		if !ok {
			t.Errorf("generation %d: %s (%s) is not in leader %s's plan", last.generation, name, id, last.leader)
			continue
		}
		if owned := led.OwnedBy(name); !owned.Equal(given) {
			t.Errorf("generation %d: %s owns %s, leader %s gave it %s", last.generation, name, owned, last.leader, given)
		}
	}
	return last
}

// librdkafkaSubscription is what the checks learned about the
// subscriptions a librdkafka member sent.
type librdkafkaSubscription struct {
	versions map[int16]int // subscription version → JoinGroups seen
	claims   int           // JoinGroups that claimed partitions, all checked
	lagging  int           // of those, claims older than the last plan the member was in
}

// checkLibrdkafkaSubscriptions decodes every JoinGroup a librdkafka member
// sent with assign/wire, as assignd does, and checks that each claim is
// true: the owned partitions (v1+) and the user data (StickyAssignorUserData)
// name the same partitions, a generation comes with them (in the
// subscription from v2, KIP-792; below v2 in the user data, which is where
// assignd reads it), and a plan of that very generation gave the member
// exactly those partitions. A claim may be older than the member's latest
// plan: librdkafka can rejoin before it has applied its last assignment,
// and then reports the one before, with that one's generation (counted as
// lagging).
func checkLibrdkafkaSubscriptions(t *testing.T, w *groupWatch, member string) librdkafkaSubscription {
	t.Helper()
	out := librdkafkaSubscription{versions: make(map[int16]int)}
	for _, j := range w.joinsOf(member) {
		meta, ok := j.protocols["cooperative-sticky"]
		if !ok {
			t.Errorf("librdkafka member %s joined without offering cooperative-sticky: %v", member, slices.Collect(maps.Keys(j.protocols)))
			continue
		}
		sub, err := wire.DecodeSubscription(meta)
		if err != nil {
			t.Errorf("librdkafka member %s: subscription does not decode: %v", member, err)
			continue
		}
		out.versions[sub.Version]++
		ud, err := wire.DecodeStickyUserData(sub.UserData)
		if err != nil {
			t.Errorf("librdkafka member %s: user data is not StickyAssignorUserData: %v", member, err)
			continue
		}
		claimed := setOf(ud.Previous)
		if owned := setOf(sub.Owned); sub.Version >= 1 && !owned.Equal(claimed) {
			t.Errorf("librdkafka member %s: owned partitions %s differ from its user data's %s", member, owned, claimed)
		}
		if len(claimed) == 0 {
			continue
		}
		out.claims++
		gen := ud.Generation
		if sub.Version >= 2 {
			gen = sub.Generation
		}
		plan, found := planOf(w, member, gen, j)
		switch {
		case !found:
			t.Errorf("librdkafka member %s claims %s from generation %d, but no plan of that generation before its JoinGroup named it", member, claimed, gen)
		case !decodePlan(t, plan)[member].Equal(claimed):
			t.Errorf("librdkafka member %s claims %s from generation %d, which gave it %s", member, claimed, gen, decodePlan(t, plan)[member])
		}
		if last, ok := lastPlanFor(w, member, j); ok && last.generation > gen {
			out.lagging++
		}
	}
	return out
}

// planOf returns the last plan of generation gen naming member, sent before
// its join j.
func planOf(w *groupWatch, member string, gen int32, j joinSeen) (syncSeen, bool) {
	syncs := w.leaderSyncs()
	for i := len(syncs) - 1; i >= 0; i-- {
		s := syncs[i]
		if _, ok := s.plan[member]; ok && s.generation == gen && s.at.Before(j.at) {
			return s, true
		}
	}
	return syncSeen{}, false
}

// lastPlanFor returns the last leader plan naming member before its join j.
func lastPlanFor(w *groupWatch, member string, j joinSeen) (syncSeen, bool) {
	syncs := w.leaderSyncs()
	for i := len(syncs) - 1; i >= 0; i-- {
		s := syncs[i]
		if _, ok := s.plan[member]; ok && s.at.Before(j.at) {
			return s, true
		}
	}
	return syncSeen{}, false
}

// describePlans renders leader plans with what each member reported owning
// when it joined, for failure messages.
func describePlans(t *testing.T, w *groupWatch, syncs []syncSeen) string {
	t.Helper()
	var b strings.Builder
	for _, s := range syncs {
		fmt.Fprintf(&b, "generation %d, leader %s at %s:\n", s.generation, s.leader, s.at.Format("15:04:05.000"))
		plan := decodePlan(t, s)
		for _, m := range slices.Sorted(maps.Keys(plan)) {
			var owned tpSet
			if meta, ok := w.lastJoinBefore(m, "cooperative-sticky", s.at); ok {
				owned = ownedInJoin(t, meta, "cooperative-sticky")
			}
			fmt.Fprintf(&b, "  %s owned %s, given %s\n", m, owned, plan[m])
		}
	}
	return b.String()
}
