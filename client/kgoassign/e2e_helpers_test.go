package kgoassign_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/testbed/grouplab"
	"github.com/assignd/assignd/testbed/shimtest"
)

// e2eTopics are the two topics of the scenarios: 48 + 12
// partitions.
var e2eTopics = []grouplab.Topic{{Name: "orders", Partitions: 48}, {Name: "audit", Partitions: 12}}

// startLab starts a lab that produces continuously, bounded (with
// everything the test does) by budget.
func startLab(t *testing.T, budget time.Duration, opts ...grouplab.Option) (*grouplab.Lab, context.Context) {
	t.Helper()
	ctx := grouplab.Budget(t, "end-to-end test against a Kafka broker", budget)
	lab, err := grouplab.New(e2eTopics, append([]grouplab.Option{grouplab.WithLogger(shimtest.Quiet)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(lab.Close)
	if err := lab.StartProducing(); err != nil {
		t.Fatal(err)
	}
	return lab, ctx
}

func start(t *testing.T, ctx context.Context, lab *grouplab.Lab, kind grouplab.Kind, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := lab.StartMember(n, kind); err != nil {
			t.Fatal(err)
		}
	}
	settle(t, ctx, lab)
}

func settle(t *testing.T, ctx context.Context, lab *grouplab.Lab) {
	t.Helper()
	if err := lab.Settle(ctx); err != nil {
		dump(t, lab)
		t.Fatal(err)
	}
}

// restart leaves name gracefully, lets the group settle, and starts its
// next incarnation name+"'" of the same kind.
func restart(t *testing.T, ctx context.Context, lab *grouplab.Lab, name string) string {
	t.Helper()
	m := lab.Member(t, name)
	if err := m.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	settle(t, ctx, lab)
	next := name + "'"
	start(t, ctx, lab, m.Kind(), next)
	return next
}

// finish stops producing, waits for every record to be processed and
// checks the invariants every scenario shares: no partition owned twice,
// no loss, duplicates only after an uncommitted move, no rebalance or move
// without a membership change, at most one follow-up per change, plans
// balanced at every settled point, and only the partitions of members that
// changed moving.
func finish(t *testing.T, ctx context.Context, lab *grouplab.Lab) *grouplab.Analysis {
	t.Helper()
	if err := lab.StopProducing(ctx); err != nil {
		t.Fatal(err)
	}
	if err := lab.Drain(ctx); err != nil {
		dump(t, lab)
		t.Fatal(err)
	}
	a := lab.Analyze()
	problems := a.Problems(true)
	for i, w := range a.Windows {
		if imb := w.Imbalance(); imb > 1 {
			problems = append(problems, fmt.Sprintf("window %d ends unbalanced: %v", i, w.Owned))
		}
		for _, mv := range w.StrayMoves() {
			problems = append(problems, fmt.Sprintf("window %d: %s moved from %s to %s, neither of which changed", i, mv.TP, mv.From, mv.To))
		}
	}
	if len(problems) > 0 || os.Getenv("E2E_TIMELINE") != "" {
		dump(t, lab)
		for _, p := range problems {
			t.Error(p)
		}
	}
	t.Logf("%d records produced, %d processed twice; %d windows", lab.Timeline().Produced(), a.Duplicates, len(a.Windows))
	return a
}

// dump logs the timeline, for failures.
func dump(t *testing.T, lab *grouplab.Lab) {
	t.Helper()
	var sb strings.Builder
	grouplab.Render(&sb, lab.Timeline().Events(), lab.Analyze())
	if os.Getenv("E2E_TIMELINE") == "raw" {
		for _, e := range lab.Timeline().Events() {
			fmt.Fprintf(&sb, "#%d %s %s %s %s g%d %v %s\n", e.Seq, e.At, e.Kind, e.Member, e.MemberID, e.Generation, e.Partitions, e.Detail)
		}
	}
	t.Log("\n" + sb.String())
	if log := lab.Broker().LogTail(100); log != "" {
		t.Logf("the Kafka broker's log, last 100 lines:\n%s", log)
	}
}
