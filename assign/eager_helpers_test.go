package assign_test

import (
	"fmt"
	"maps"
	"strings"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// checkT is what the helpers need of *testing.T and *rapid.T alike.
type checkT interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// run runs a on g with opts and fails the test unless the result passes
// the shared invariant checker with checks (balanced, most often). It is
// the one wrapper the package's tests, table and property alike, run
// through.
func run(t checkT, a assign.Assignor, g *assign.Group, opts []assign.Option, checks ...assigntest.CheckOption) *assign.Result {
	t.Helper()
	r, err := assign.Run(a, g, opts...)
	if err != nil {
		t.Fatalf("Run(%s): %v", assign.Ref(a), err)
	}
	if err := assigntest.Check(g, r, checks...); err != nil {
		t.Fatalf("Run(%s) broke invariants:\n%v", assign.Ref(a), err)
	}
	return r
}

// balanced is the check option of plans that must be balanced.
var balanced = assigntest.Balanced()

// layout renders each member's assignment as "t0:0,1 t1:2" ("" for none),
// the form the table tests spell their expectations in.
func layout(r *assign.Result) map[string]string {
	return layouts(r, func(m assign.MemberAssignment) []assign.TopicPartitions { return m.Assigned })
}

// revokedLayout renders each member's Revoked as layout does Assigned.
func revokedLayout(r *assign.Result) map[string]string {
	return layouts(r, func(m assign.MemberAssignment) []assign.TopicPartitions { return m.Revoked })
}

func layouts(r *assign.Result, of func(assign.MemberAssignment) []assign.TopicPartitions) map[string]string {
	out := make(map[string]string, len(r.Members))
	for _, m := range r.Members {
		out[m.ID] = layoutOf(of(m))
	}
	return out
}

// layoutOf renders partitions as layout does one member's.
func layoutOf(l []assign.TopicPartitions) string {
	var parts []string
	for _, tp := range l {
		ps := make([]string, len(tp.Partitions))
		for i, p := range tp.Partitions {
			ps[i] = fmt.Sprint(p)
		}
		parts = append(parts, tp.Topic+":"+strings.Join(ps, ","))
	}
	return strings.Join(parts, " ")
}

// wantLayout compares layout(r) with want, where members missing from want
// must get nothing.
func wantLayout(t checkT, r *assign.Result, want map[string]string) {
	t.Helper()
	got := layout(r)
	full := make(map[string]string, len(got))
	for id := range got {
		full[id] = want[id]
	}
	for id := range want {
		if _, ok := got[id]; !ok {
			t.Errorf("member %q missing from the result", id)
		}
	}
	if !maps.Equal(got, full) {
		for _, m := range r.Members {
			if got[m.ID] != full[m.ID] {
				t.Errorf("%s: got %q, want %q", m.ID, got[m.ID], full[m.ID])
			}
		}
	}
}

// basicEagerCases are the table cases on which range and roundrobin agree
// (the Java tests share them too); each assignor's table adds its own.
var basicEagerCases = []layoutCase{
	{"one consumer, no topic", assigntest.NewGroup().Topic("topic", 3).Member("consumer"), map[string]string{}},
	{"one consumer, topic missing from metadata", assigntest.NewGroup().Member("consumer", "topic"), map[string]string{}},
	{"one consumer, one topic", assigntest.NewGroup().Topic("topic", 3).Member("consumer", "topic"),
		map[string]string{"consumer": "topic:0,1,2"}},
	{"only subscribed topics", assigntest.NewGroup().Topic("topic", 3).Topic("other", 3).Member("consumer", "topic"),
		map[string]string{"consumer": "topic:0,1,2"}},
	{"one consumer, multiple topics", assigntest.NewGroup().Topic("topic1", 1).Topic("topic2", 2).Member("consumer", "topic1", "topic2"),
		map[string]string{"consumer": "topic1:0 topic2:0,1"}},
	{"two consumers, one partition", assigntest.NewGroup().Topic("topic", 1).Member("consumer1", "topic").Member("consumer2", "topic"),
		map[string]string{"consumer1": "topic:0"}},
	{"two consumers, two partitions", assigntest.NewGroup().Topic("topic", 2).Member("consumer1", "topic").Member("consumer2", "topic"),
		map[string]string{"consumer1": "topic:0", "consumer2": "topic:1"}},
	{"mixed topics", assigntest.NewGroup().Topic("topic1", 3).Topic("topic2", 2).
		Member("consumer1", "topic1").Member("consumer2", "topic1", "topic2").Member("consumer3", "topic1"),
		map[string]string{"consumer1": "topic1:0", "consumer2": "topic1:1 topic2:0,1", "consumer3": "topic1:2"}},
}

// layoutCase is one table case: a group and the layout expected of it.
type layoutCase struct {
	name string
	g    *assigntest.GroupBuilder
	want map[string]string
}

// classicCases are the cases Kafka's RangeAssignorTest and
// RoundRobinAssignorTest share, where the two plans differ.
var classicCases = []struct {
	name               string
	g                  *assigntest.GroupBuilder
	ranged, roundRobin map[string]string
}{{
	name: "two dynamic consumers, two topics, six partitions",
	g: assigntest.NewGroup().Topic("topic1", 3).Topic("topic2", 3).
		Member("consumer1", "topic1", "topic2").Member("consumer2", "topic1", "topic2"),
	ranged:     map[string]string{"consumer1": "topic1:0,1 topic2:0,1", "consumer2": "topic1:2 topic2:2"},
	roundRobin: map[string]string{"consumer1": "topic1:0,2 topic2:1", "consumer2": "topic1:1 topic2:0,2"},
}, {
	name: "static members ordered by instance id, not member id",
	g: assigntest.NewGroup().Topic("topic1", 3).Topic("topic2", 3).
		Member("consumer1", "topic1", "topic2").Static("consumer1", "instance2").
		Member("consumer2", "topic1", "topic2").Static("consumer2", "instance1"),
	ranged:     map[string]string{"consumer1": "topic1:2 topic2:2", "consumer2": "topic1:0,1 topic2:0,1"},
	roundRobin: map[string]string{"consumer1": "topic1:1 topic2:0,2", "consumer2": "topic1:0,2 topic2:1"},
}, {
	name: "static members before dynamic ones",
	g: assigntest.NewGroup().Topic("topic1", 3).Topic("topic2", 3).
		Member("consumer1", "topic1", "topic2").
		Member("consumer2", "topic1", "topic2").Static("consumer2", "instance"),
	ranged:     map[string]string{"consumer1": "topic1:2 topic2:2", "consumer2": "topic1:0,1 topic2:0,1"},
	roundRobin: map[string]string{"consumer1": "topic1:1 topic2:0,2", "consumer2": "topic1:0,2 topic2:1"},
}}

// coPartitioned is a case on which range@1 and the KIP-848 range@2 agree.
var coPartitioned = layoutCase{
	name: "co-partitioned topics with the same subscribers follow each other",
	g: assigntest.NewGroup().Topic("t1", 4).Topic("t2", 4).Topic("t3", 4).
		Member("A", "t1", "t2").Member("B", "t1", "t2", "t3").Member("C", "t1", "t2", "t3"),
	want: map[string]string{"A": "t1:0,1 t2:0,1", "B": "t1:2 t2:2 t3:0,1", "C": "t1:3 t2:3 t3:2,3"},
}
