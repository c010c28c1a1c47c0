package kgoassign_test

import (
	"testing"
	"time"

	"github.com/assignd/assignd/client"
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
	b := kgoassign.CooperativeSticky(shimtest.NewClient(t, shimtest.ServeFake(t, &shimtest.Proxy{Block: true})),
		kgoassign.WithTimeout(100*time.Millisecond), kgoassign.WithFallbackTimeout(time.Nanosecond),
		kgoassign.WithLogger(shimtest.Quiet), kgoassign.WithObserver(func(r kgoassign.Report) { rep = r }))
	out, err := lead(t, b, g)
	if err != nil {
		t.Fatalf("a bounded fallback failed: %v", err)
	}
	if st := b.Stats(); st != (client.BalanceStats{Fallbacks: 1}) || rep.Reason != "DeadlineExceeded" {
		t.Fatalf("stats %+v, reason %q, want one fallback after the timeout", st, rep.Reason)
	}
	// The leader's balance: the call's 100 ms, then one linear placement
	// of 1,000,000 partitions (well under a second) and the encoding; 3 s
	// leaves room for a loaded machine.
	if rep.Took > 3*time.Second {
		t.Fatalf("the leader was blocked %s", rep.Took)
	}

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
