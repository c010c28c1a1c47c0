package saramaassign_test

import (
	"context"
	"iter"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"google.golang.org/grpc"
)

// TestE2ESticky: adapter members join one by one and in a batch, one
// leaves; at every settled point each partition is claimed by exactly one
// member and the claims are balanced, members that stay only lose
// partitions when one joins and keep every partition when one leaves, and
// assignd planned every rebalance.
func TestE2ESticky(t *testing.T) {
	l := startLab(t, 45*time.Second)
	l.start(adapter, sarama.StickyBalanceStrategyName, "m0")
	l.start(adapter, sarama.StickyBalanceStrategyName, "m1", "m2")
	before := l.settle()
	assertBalanced(t, before)

	after := l.start(adapter, sarama.StickyBalanceStrategyName, "m3")
	assertBalanced(t, after)
	assertOnlyGaveUp(t, before, after, "m0", "m1", "m2")

	before = after
	after = l.leave("m1")
	assertBalanced(t, after)
	assertKept(t, before, after, "m0", "m2", "m3")

	l.finish()
	assertAllServed(t, l)
}

// TestE2ERangeAndRoundRobin: the stateless protocols converge the same way
// through a join and a leave.
func TestE2ERangeAndRoundRobin(t *testing.T) {
	for _, protocol := range []string{sarama.RangeBalanceStrategyName, sarama.RoundRobinBalanceStrategyName} {
		t.Run(protocol, func(t *testing.T) {
			l := startLab(t, 30*time.Second)
			l.start(adapter, protocol, "m0", "m1")
			assertBalanced(t, l.start(adapter, protocol, "m2"))
			claims := l.leave("m0")
			assertBalanced(t, claims)
			if len(claims) != 2 {
				t.Errorf("claims after m0 left: %v", claims)
			}
			l.finish()
			assertAllServed(t, l)
		})
	}
}

// TestE2EAssigndOutage stops assignd while the group changes: leaders
// fall back in-process, the group still converges with the same
// guarantees and keeps consuming, and once assignd is back leaders use it
// again.
func TestE2EAssigndOutage(t *testing.T) {
	l := startLab(t, 45*time.Second)
	l.start(adapter, sarama.StickyBalanceStrategyName, "m0", "m1", "m2")
	servedBefore := served(l)

	l.stopAssignd()
	before := l.start(adapter, sarama.StickyBalanceStrategyName, "m3")
	assertBalanced(t, before)
	after := l.leave("m0")
	assertBalanced(t, after)
	assertKept(t, before, after, "m1", "m2", "m3")
	if served(l) != servedBefore {
		t.Errorf("%d plans served while assignd was down", served(l)-servedBefore)
	}
	if fellBack(l) == 0 {
		t.Fatal("no leader fell back while assignd was down")
	}
	for _, e := range l.tl.Leaders() {
		if strings.HasPrefix(e.Detail, "fallback") && e.Detail != "fallback Unavailable" {
			t.Errorf("%s fell back with %q, want Unavailable", e.Member, e.Detail)
		}
	}

	if err := l.assignd.Start(); err != nil {
		t.Fatal(err)
	}
	waitAssignd(t, l)
	servedBefore = served(l)
	assertBalanced(t, l.start(adapter, sarama.StickyBalanceStrategyName, "m4"))
	if served(l) == servedBefore {
		t.Error("no plan was served by assignd after it came back")
	}
	l.finish()
}

// TestE2EMixedSticky runs adapter members beside sarama's own sticky
// strategy in one group. A native member leads first, with adapter
// members following (they send back user data sarama wrote); then only
// adapter members are left to lead, with a native member following
// (it sends back user data the adapter wrote); then members of both kinds
// leave and join under whichever leader the broker picks. Every settled
// point is exactly-once and balanced, and members that stay keep their
// partitions when one leaves.
func TestE2EMixedSticky(t *testing.T) {
	const sticky = sarama.StickyBalanceStrategyName
	l := startLab(t, 60*time.Second)
	l.start(native, sticky, "n0") // the first member leads
	l.start(adapter, sticky, "a1", "a2")
	before := l.settle()
	if !led(l, "n0") {
		t.Fatalf("the native first member did not lead:\n%s", l.tl.History())
	}

	// n0 leaves: only adapter members remain to lead.
	after := l.leave("n0")
	assertKept(t, before, after, "a1", "a2")
	before = l.start(native, sticky, "n1")
	assertBalanced(t, before)

	// The next leader reads user data written by both kinds.
	after = l.leave("a1")
	assertBalanced(t, after)
	assertKept(t, before, after, "a2", "n1")
	before = l.start(adapter, sticky, "a3")
	assertOnlyGaveUp(t, after, before, "a2", "n1")
	after = l.leave("a2")
	assertKept(t, before, after, "n1", "a3")

	l.finish()
	var adapterLed bool
	for _, e := range l.tl.Leaders() {
		adapterLed = adapterLed || (e.Detail != "native")
	}
	if !adapterLed {
		t.Errorf("no adapter member led:\n%s", l.tl.History())
	}
	for _, m := range l.members {
		if errs := m.errors(); len(errs) > 0 {
			t.Errorf("%s: Consume failed: %v", m.name, errs)
		}
	}
}

// assertBalanced: member claim counts differ by at most one.
func assertBalanced(t *testing.T, claims map[string][]tp) {
	t.Helper()
	lo, hi := -1, 0
	for _, c := range claims {
		hi = max(hi, len(c))
		if lo < 0 || len(c) < lo {
			lo = len(c)
		}
	}
	if hi-lo > 1 {
		t.Errorf("unbalanced claims: %v", claims)
	}
}

// assertKept: each named member still claims everything it claimed.
func assertKept(t *testing.T, before, after map[string][]tp, names ...string) {
	t.Helper()
	for n, x := range missing(before, after, names) {
		t.Errorf("%s lost %s although it stayed: before %v, after %v", n, x, before[n], after[n])
	}
}

// assertOnlyGaveUp: each named member claims nothing it did not claim
// before.
func assertOnlyGaveUp(t *testing.T, before, after map[string][]tp, names ...string) {
	t.Helper()
	for n, x := range missing(after, before, names) {
		t.Errorf("%s was given %s while a member joined: before %v, after %v", n, x, before[n], after[n])
	}
}

// missing yields each claim in from of a named member that the member
// lacks in to.
func missing(from, to map[string][]tp, names []string) iter.Seq2[string, tp] {
	return func(yield func(string, tp) bool) {
		for _, n := range names {
			for _, x := range from[n] {
				if !slices.Contains(to[n], x) && !yield(n, x) {
					return
				}
			}
		}
	}
}

// assertAllServed: adapter leaders planned every time through assignd,
// and no Consume call failed.
func assertAllServed(t *testing.T, l *lab) {
	t.Helper()
	for _, m := range l.members {
		if m.adapter != nil {
			if st := m.adapter.Stats(); st.Fallbacks+st.Failures > 0 {
				t.Errorf("%s: %+v, want every plan served", m.name, st)
			}
		}
		if errs := m.errors(); len(errs) > 0 {
			t.Errorf("%s: Consume failed: %v", m.name, errs)
		}
	}
	if served(l) == 0 {
		t.Error("no plan was served by assignd")
	}
}

func served(l *lab) (n uint64) {
	for _, m := range l.members {
		if m.adapter != nil {
			n += m.adapter.Stats().Served
		}
	}
	return n
}

func fellBack(l *lab) (n uint64) {
	for _, m := range l.members {
		if m.adapter != nil {
			n += m.adapter.Stats().Fallbacks
		}
	}
	return n
}

func led(l *lab, name string) bool {
	for _, e := range l.tl.Leaders() {
		if e.Member == name {
			return true
		}
	}
	return false
}

// waitAssignd waits until every live adapter member's connection to
// assignd is up again, so that the next plan goes to the service.
func waitAssignd(t *testing.T, l *lab) {
	t.Helper()
	for _, m := range l.live() {
		if m.assignd == nil {
			continue
		}
		for {
			ctx, cancel := context.WithTimeout(l.ctx, time.Second)
			_, err := m.assignd.ListAssignors(ctx, grpc.WaitForReady(true))
			cancel()
			if err == nil {
				break
			}
			if l.ctx.Err() != nil {
				t.Fatalf("%s cannot reach assignd: %v", m.name, err)
			}
		}
	}
}
