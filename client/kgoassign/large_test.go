package kgoassign_test

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/kgoassign"
	"github.com/assignd/assignd/testbed/shimtest"
)

// millionPartitionGroup is the large group of the performance figures:
// 2,000 members, all subscribed to 500 topics of 2,000 partitions (1,000,000 partitions),
// member i owning partition i of every topic at generation 5. It is
// balanced and sticky, so assignd hands every member back what it owns:
// one partition of each of 500 topics, the widest encoded assignment such
// a group can have (about 20 MB in all, five times gRPC's default limit).
func millionPartitionGroup() *assign.Group {
	const members, topics, partitions = 2000, 500, 2000
	g := &assign.Group{Generation: 6, Protocol: assign.Cooperative}
	names := make([]string, topics)
	for t := range names {
		names[t] = fmt.Sprintf("topic-%03d", t)
		g.Topics = append(g.Topics, assign.Topic{Name: names[t], Partitions: partitions})
	}
	ids := make([]int32, members) // one backing array for every Owned list
	for i := range members {
		ids[i] = int32(i)
		m := assign.Member{ID: fmt.Sprintf("member-%04d", i), Topics: names, Generation: 5, Owned: make([]assign.TopicPartitions, topics)}
		for t, name := range names {
			m.Owned[t] = assign.TopicPartitions{Topic: name, Partitions: ids[i : i+1 : i+1]}
		}
		g.Members = append(g.Members, m)
	}
	return g
}

// TestLargeGroupThroughAssignd: with the client's default
// receive limit, a 1,000,000-partition group is served by assignd; with
// gRPC's old default of 4 MiB it falls back, and the fallback is logged at
// ERROR naming the option to raise. Both give the same bytes.
func TestLargeGroupThroughAssignd(t *testing.T) {
	shimtest.SkipLarge(t)
	g := millionPartitionGroup()
	// The test is about size, not speed: a slow machine must not make it
	// fall back for DeadlineExceeded.
	slow := kgoassign.WithTimeout(time.Minute)
	slowFallback := kgoassign.WithFallbackTimeout(time.Minute)
	addr := shimtest.ServeAssignd(t)

	var served []kmsg.SyncGroupRequestGroupAssignment
	t.Run("default limit", func(t *testing.T) {
		var rep kgoassign.Report
		b := kgoassign.CooperativeSticky(shimtest.NewClient(t, addr, client.WithTimeout(0)), slow, kgoassign.WithLogger(shimtest.Quiet),
			kgoassign.WithObserver(func(r kgoassign.Report) { rep = r }))
		out, err := lead(t, b, g)
		if err != nil {
			t.Fatal(err)
		}
		if st := b.Stats(); st != (client.BalanceStats{Served: 1}) {
			t.Fatalf("stats %+v (reason %q: %v), want the balance served by assignd", st, rep.Reason, rep.Err)
		}
		size := 0
		for _, a := range out {
			size += len(a.MemberAssignment)
		}
		if size <= 4<<20 {
			t.Fatalf("the assignments take %d bytes, under gRPC's default limit: the test proves nothing", size)
		}
		t.Logf("%d members, %d partitions: %d bytes of assignments", rep.Members, rep.Partitions, size)
		// Unchanged and balanced: every member keeps exactly what it owns.
		for id, tps := range decodeAll(t, out) {
			var i int32
			fmt.Sscanf(id, "member-%04d", &i)
			if len(tps) != len(g.Topics) {
				t.Fatalf("%s got %d topics, want %d", id, len(tps), len(g.Topics))
			}
			for _, tp := range tps {
				if len(tp.Partitions) != 1 || tp.Partitions[0] != i {
					t.Fatalf("%s got %s %v, want partition %d", id, tp.Topic, tp.Partitions, i)
				}
			}
		}
		served = out
	})
	if served == nil {
		t.FailNow()
	}

	t.Run("gRPC's default limit falls back loudly", func(t *testing.T) {
		var logs bytes.Buffer
		var rep kgoassign.Report
		c := shimtest.NewClient(t, addr, client.WithTimeout(0), client.WithMaxResponseBytes(4<<20))
		b := kgoassign.CooperativeSticky(c, slow, slowFallback, kgoassign.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
			kgoassign.WithObserver(func(r kgoassign.Report) { rep = r }))
		out, err := lead(t, b, g)
		if err != nil {
			t.Fatal(err)
		}
		if st := b.Stats(); st != (client.BalanceStats{Fallbacks: 1}) || rep.Reason != "ResourceExhausted" {
			t.Fatalf("stats %+v, reason %q, want one fallback for ResourceExhausted", st, rep.Reason)
		}
		line := logs.String()
		if !strings.Contains(line, "level=ERROR") || !strings.Contains(line, "WithMaxResponseBytes") {
			t.Fatalf("the fallback was logged as\n%s\nwant an ERROR naming WithMaxResponseBytes", line)
		}
		sameAssignments(t, out, served)
	})
}
