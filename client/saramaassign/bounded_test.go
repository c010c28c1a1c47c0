package saramaassign_test

import (
	"testing"
	"time"

	"github.com/IBM/sarama"

	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/client/saramaassign"
	"github.com/assignd/assignd/testbed/shimtest"
)

// TestFallbackIsBounded: with assignd hung and a fallback bound far too
// short for the group, the leader is blocked only the call's timeout, the
// bound and one placement, and still returns a valid plan, with a warning
// that it was cut short.
func TestFallbackIsBounded(t *testing.T) {
	shimtest.SkipLarge(t)
	// The cooperative scale-out, as an eager sticky group: member 0's
	// previous assignment is in its user data.
	g := shimtest.ScaleOutGroup(1000)
	members := make(map[string]sarama.ConsumerGroupMemberMetadata, len(g.Members))
	for _, m := range g.Members {
		meta := sarama.ConsumerGroupMemberMetadata{Version: 1, Topics: m.Topics}
		if len(m.Owned) > 0 {
			meta.UserData = wire.AppendStickyUserData(nil, m.Owned, m.Generation, true)
		}
		members[m.ID] = meta
	}
	topics := map[string][]int32{}
	for _, tp := range g.Topics {
		ps := make([]int32, tp.Partitions)
		for p := range ps {
			ps[p] = int32(p)
		}
		topics[tp.Name] = ps
	}

	var rep saramaassign.Report
	s := saramaassign.Sticky(shimtest.HungAssignd(t),
		saramaassign.WithTimeout(shimtest.BoundedCallTimeout), saramaassign.WithFallbackTimeout(time.Nanosecond),
		saramaassign.WithLogger(shimtest.Quiet), saramaassign.WithObserver(func(r saramaassign.Report) { rep = r }))
	plan, err := s.Plan(members, topics)
	if err != nil {
		t.Fatalf("a bounded fallback failed: %v", err)
	}
	shimtest.CheckBoundedFallback(t, s.Stats(), rep.BalanceReport)
	checkPlan(t, members, topics, plan)
	if len(rep.Warnings) == 0 {
		t.Fatal("a plan cut short carries no warning")
	}
	t.Logf("blocked %s; warnings %q", rep.Took, rep.Warnings)
}
