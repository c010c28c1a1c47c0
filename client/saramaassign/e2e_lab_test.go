package saramaassign_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/assignd/assignd/testbed/grouplab"
	"github.com/assignd/assignd/testbed/shimtest"
)

// The end-to-end tests run real sarama consumer groups on kfake, franz-go's
// in-process Kafka-protocol broker, or with ASSIGND_BROKER=kafka on a real
// Apache Kafka broker (grouplab.StartBroker), with an in-process assignd
// and a producer writing all along. Everything listens on 127.0.0.1.

// e2eTopics: 12 + 4 partitions.
var e2eTopics = map[string]int32{"orders": 12, "audit": 4}

// quietPeriod is how long the group must show no session change to count
// as settled: several heartbeats (100 ms), so that a pending rebalance
// would have shown.
const quietPeriod = 600 * time.Millisecond

// tp is the module's one topic-partition type.
type tp = grouplab.TP

// lab is one broker, one restartable assignd, one consumer group of sarama
// members, a producer and the ledger they all write (grouplab's).
type lab struct {
	t       *testing.T
	ctx     context.Context
	broker  *grouplab.Broker
	seeds   []string
	group   string // the consumer group's name on the broker
	assignd *grouplab.Assignd
	tl      *grouplab.Ledger
	prod    *grouplab.Producer

	mu      sync.Mutex
	members []*member // every member ever started, in start order
}

// startLab starts a lab bounded (with everything the test does) by
// budget, and stops it when the test ends.
func startLab(t *testing.T, budget time.Duration) *lab {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test against a Kafka broker")
	}
	kind, err := grouplab.BrokerFromEnv()
	if err != nil {
		t.Fatal(err)
	}
	var topics []grouplab.Topic
	for name, n := range e2eTopics {
		topics = append(topics, grouplab.Topic{Name: name, Partitions: n})
	}
	// The real broker's first start is not the test's budget.
	bctx, bcancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer bcancel()
	broker, err := grouplab.StartBroker(bctx, kind, topics)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	t.Cleanup(cancel)
	l := &lab{t: t, ctx: ctx, broker: broker, seeds: broker.Seeds(), group: broker.Group("lab"), tl: grouplab.NewLedger()}
	t.Cleanup(l.close)
	t.Cleanup(func() {
		if log := broker.LogTail(100); t.Failed() && log != "" {
			t.Logf("the Kafka broker's log, last 100 lines:\n%s", log)
		}
	})
	if l.assignd, err = grouplab.StartAssignd(shimtest.Quiet); err != nil {
		t.Fatal(err)
	}
	// One record every 5 ms, cycling through every partition.
	var tps []tp
	for _, name := range slices.Sorted(maps.Keys(e2eTopics)) {
		for p := range e2eTopics[name] {
			tps = append(tps, tp{Topic: name, Partition: p})
		}
	}
	l.prod, err = grouplab.StartProducer(l.seeds, tps, 5*time.Millisecond, l.tl.Produced)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (l *lab) close() {
	for _, m := range l.live() {
		m.close()
	}
	if l.prod != nil {
		_ = l.prod.Stop(context.Background())
	}
	if l.assignd != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = l.assignd.Stop(ctx)
	}
	l.broker.Close()
}

// live returns the members that have not left.
func (l *lab) live() []*member {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*member
	for _, m := range l.members {
		if !m.left {
			out = append(out, m)
		}
	}
	return out
}

func (l *lab) member(name string) *member {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range l.members {
		if m.name == name {
			return m
		}
	}
	l.t.Fatalf("no member %s", name)
	return nil
}

// settle waits until every live member runs a session of one generation,
// their claims cover every partition exactly once, and nothing has changed
// for quietPeriod. It returns each member's claims.
func (l *lab) settle() map[string][]tp {
	l.t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var why string
	for {
		var claims map[string][]tp
		claims, why = l.settled()
		if why == "" {
			return claims
		}
		select {
		case <-l.ctx.Done():
			l.t.Fatalf("the group did not settle: %s\n%s", why, l.tl.History())
		case <-tick.C:
		}
	}
}

// settled returns the live members' claims, or why the group is not
// settled yet.
func (l *lab) settled() (map[string][]tp, string) {
	live := l.live()
	sessions, last := l.tl.Sessions()
	if since := time.Since(last); since < quietPeriod {
		return nil, fmt.Sprintf("last session change %s ago", since)
	}
	claims := make(map[string][]tp, len(live))
	owner := map[tp]string{}
	gen := int32(-1)
	for _, m := range live {
		s, ok := sessions[m.name]
		switch {
		case !ok:
			return nil, fmt.Sprintf("%s has no session", m.name)
		case gen >= 0 && s.Generation != gen:
			return nil, fmt.Sprintf("%s is in generation %d, not %d", m.name, s.Generation, gen)
		}
		gen = s.Generation
		for _, x := range s.Claims {
			if o, dup := owner[x]; dup {
				return nil, fmt.Sprintf("%s is claimed by %s and %s", x, o, m.name)
			}
			owner[x] = m.name
		}
		claims[m.name] = s.Claims
	}
	for name, n := range e2eTopics {
		for p := range n {
			if _, ok := owner[tp{Topic: name, Partition: p}]; !ok {
				return nil, fmt.Sprintf("%s is claimed by nobody", tp{Topic: name, Partition: p})
			}
		}
	}
	return claims, ""
}

// finish stops producing, waits until every record produced was
// consumed, and checks the timeline: no partition was ever claimed by two
// members at once, and every record was consumed by a member that had
// claimed its partition at the time.
func (l *lab) finish() {
	l.t.Helper()
	if err := l.prod.Stop(l.ctx); err != nil {
		l.t.Fatal(err)
	}
	for missing := l.tl.Unconsumed(); missing > 0; missing = l.tl.Unconsumed() {
		select {
		case <-l.ctx.Done():
			l.t.Fatalf("%d of %d records produced were never consumed\n%s", missing, l.tl.ProducedCount(), l.tl.History())
		case <-time.After(50 * time.Millisecond):
		}
	}
	for _, p := range l.tl.Problems() {
		l.t.Error(p)
	}
	if l.tl.ProducedCount() == 0 {
		l.t.Error("nothing was produced")
	}
	if os.Getenv("E2E_TIMELINE") != "" {
		l.t.Log("\n" + l.tl.History())
	}
	l.t.Logf("%d records produced, %d consumed twice", l.tl.ProducedCount(), l.tl.Duplicates())
}

// flatten lists a claims map sorted.
func flatten(claims map[string][]int32) []tp {
	var out []tp
	for t, ps := range claims {
		for _, p := range ps {
			out = append(out, tp{Topic: t, Partition: p})
		}
	}
	return grouplab.SetOf(out...).Sorted()
}

// stopAssignd stops the lab's assignd (bounded); leaders' calls fail until
// it starts again on the same address.
func (l *lab) stopAssignd() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = l.assignd.Stop(ctx)
}
