package kgoassign_test

import (
	"testing"
	"time"

	"github.com/assignd/assignd/client/kgoassign"
	"github.com/assignd/assignd/testbed/shimtest"
)

// TestFallbackIsBounded: with assignd hung and a fallback bound far too
// short for the group, the leader is blocked only the call's timeout, the
// bound and one placement, and still hands SyncGroup a valid plan.
func TestFallbackIsBounded(t *testing.T) {
	shimtest.SkipLarge(t)
	g := shimtest.ScaleOutGroup(1000)
	var rep kgoassign.Report
	b := kgoassign.CooperativeSticky(shimtest.HungAssignd(t),
		kgoassign.WithTimeout(shimtest.BoundedCallTimeout), kgoassign.WithFallbackTimeout(time.Nanosecond),
		kgoassign.WithLogger(shimtest.Quiet), kgoassign.WithObserver(func(r kgoassign.Report) { rep = r }))
	out, err := lead(t, b, g)
	if err != nil {
		t.Fatalf("a bounded fallback failed: %v", err)
	}
	shimtest.CheckBoundedFallback(t, b.Stats(), rep.BalanceReport)

	// Valid: no partition twice, only to subscribers, and whatever nobody
	// is given is withheld from its owner (KIP-429), so still owned.
	// Per topic and partition: the member owning it, and the one given it.
	owner, given := map[string][]string{}, map[string][]string{}
	for _, topic := range g.Topics {
		owner[topic.Name], given[topic.Name] = make([]string, topic.Partitions), make([]string, topic.Partitions)
	}
	subscribes := map[string]map[string]bool{}
	for _, m := range g.Members {
		subscribes[m.ID] = map[string]bool{}
		for _, topic := range m.Topics {
			subscribes[m.ID][topic] = true
		}
		for _, o := range m.Owned {
			for _, p := range o.Partitions {
				owner[o.Topic][p] = m.ID
			}
		}
	}
	n := 0
	for id, tps := range decodeAll(t, out) {
		for _, a := range tps {
			if !subscribes[id][a.Topic] {
				t.Fatalf("%s got %s, which it does not subscribe to", id, a.Topic)
			}
			for _, p := range a.Partitions {
				if other := given[a.Topic][p]; other != "" {
					t.Fatalf("%s/%d given to %s and %s", a.Topic, p, other, id)
				}
				if o := owner[a.Topic][p]; o != "" && o != id {
					t.Fatalf("%s/%d given to %s while %s owns it", a.Topic, p, id, o)
				}
				given[a.Topic][p] = id
				n++
			}
		}
	}
	for topic, ps := range given {
		for p, id := range ps {
			if id == "" && owner[topic][p] == "" {
				t.Fatalf("%s/%d is neither given nor withheld from its owner", topic, p)
			}
		}
	}
	t.Logf("blocked %s; %d partitions given, follow-up %v", rep.Took, n, rep.FollowupRequired)
}
