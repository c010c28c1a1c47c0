//go:build unix

package interop

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/assignd/assignd/assign/wire"
)

// checkPlansExclusive checks every leader plan the broker saw: no partition
// is given to two members, and every partition given exists. When complete
// is set (eager groups), every partition must be given to someone.
func checkPlansExclusive(t *testing.T, w *groupWatch, all tpSet, complete bool) {
	t.Helper()
	for _, s := range w.leaderSyncs() {
		seen := make(map[tp]string)
		for member, set := range decodePlan(t, s) {
			for p := range set {
				if !all.Has(p) {
					t.Errorf("generation %d: leader %s gave member %s partition %s, which does not exist", s.generation, s.leader, member, p)
				}
				if o, dup := seen[p]; dup {
					t.Errorf("generation %d: leader %s gave %s to both %s and %s", s.generation, s.leader, p, o, member)
				}
				seen[p] = member
			}
		}
		if complete && len(seen) != len(all) {
			t.Errorf("generation %d: leader %s assigned %d of %d partitions", s.generation, s.leader, len(seen), len(all))
		}
	}
}

// checkSameAnswer checks kfake's many-leaders defect from assignd's side:
// when several members led the same generation (kfake tells every member it
// is leader after the leader leaves), every leader that asked assignd must
// have sent the same plan, byte for byte. leaders limits the check to the
// member ids whose plans came from assignd. It returns how many
// generations had more than one such leader.
func checkSameAnswer(t *testing.T, w *groupWatch, leaders map[string]bool) int {
	t.Helper()
	byGen := make(map[int32][]syncSeen)
	for _, s := range w.leaderSyncs() {
		if leaders[s.leader] {
			byGen[s.generation] = append(byGen[s.generation], s)
		}
	}
	multi := 0
	for _, gen := range slices.Sorted(maps.Keys(byGen)) {
		ss := byGen[gen]
		if len(ss) < 2 {
			continue
		}
		multi++
		first := ss[0]
		for _, s := range ss[1:] {
			if !samePlan(first.plan, s.plan) {
				t.Errorf("generation %d: leaders %s and %s sent different plans for the same group state:\n%v\n%v",
					gen, first.leader, s.leader, decodePlan(t, first), decodePlan(t, s))
			}
		}
	}
	return multi
}

func samePlan(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for m, x := range a {
		if y, ok := b[m]; !ok || !bytes.Equal(x, y) {
			return false
		}
	}
	return true
}

// ownedInJoin decodes the partitions a subscription reports owning: the
// owned-partitions field (v1+) or, for the eager sticky protocol, the
// previous assignment in its user data.
func ownedInJoin(t *testing.T, meta []byte, protocol string) tpSet {
	t.Helper()
	sub, err := wire.DecodeSubscription(meta)
	if err != nil {
		t.Fatalf("undecodable subscription: %v", err)
	}
	if protocol == "sticky" && len(sub.Owned) == 0 {
		ud, err := wire.DecodeStickyUserData(sub.UserData)
		if err != nil {
			t.Fatalf("undecodable sticky user data: %v", err)
		}
		return setOf(ud.Previous)
	}
	return setOf(sub.Owned)
}
