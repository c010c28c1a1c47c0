package assign_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// runKIP848Table runs a on each case's group, EAGER, so that the result is
// the whole target, as the broker returns it.
func runKIP848Table(t *testing.T, a assign.Assignor, tests []layoutCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.g.Build() // not tt.g.Protocol: the builders are shared
			g.Protocol = assign.Eager
			r := run(t, a, g, nil)
			wantLayout(t, r, tt.want)
			if r.Assignor != a.Name() || r.Version != 1 {
				t.Errorf("header %s@%d", r.Assignor, r.Version)
			}
		})
	}
}

// The scenarios of Kafka's UniformHomogeneousAssignmentBuilder tests
// (OptimizedUniformAssignmentBuilderTest), in our words, with the results
// worked out by hand for assignd's orders (members by id, topics by name),
// and the 4.1 rule for the extra partitions (a member that cannot fill its
// extra slot from what it owns leaves it to a later member).
func TestKIP848UniformHomogeneous(t *testing.T) {
	runKIP848Table(t, assign.KIP848Uniform(), []layoutCase{
		{
			name: "one member without topics",
			g:    assigntest.NewGroup().Topic("topic1", 3).Member("A"),
			want: map[string]string{"A": ""},
		},
		{
			name: "first assignment: quota over total partitions, the extra one to the last member",
			g:    assigntest.NewGroup().Topic("topic1", 3).Topic("topic2", 2).Member("A", "topic1", "topic2").Member("B", "topic1", "topic2"),
			want: map[string]string{"A": "topic1:0,1", "B": "topic1:2 topic2:0,1"},
		},
		{
			name: "first assignment: per-topic skew, each member a whole topic",
			g:    assigntest.NewGroup().Topic("topic1", 2).Topic("topic2", 2).Member("A", "topic1", "topic2").Member("B", "topic1", "topic2"),
			want: map[string]string{"A": "topic1:0,1", "B": "topic2:0,1"},
		},
		{
			name: "more members than partitions: the last ones get them",
			g:    assigntest.NewGroup().Topic("topic1", 2).Member("A", "topic1").Member("B", "topic1").Member("C", "topic1"),
			want: map[string]string{"A": "", "B": "topic1:0", "C": "topic1:1"},
		},
		{
			name: "unbalanced previous assignment: balance first, the over-quota member keeps its first partitions",
			g: assigntest.NewGroup().Topic("topic1", 3).Topic("topic2", 3).
				Member("A", "topic1", "topic2").Owns("A", "topic1", 0, 1).Owns("A", "topic2", 0, 1).
				Member("B", "topic1", "topic2").Owns("B", "topic1", 2).Owns("B", "topic2", 2),
			want: map[string]string{"A": "topic1:0,1 topic2:0", "B": "topic1:2 topic2:1,2"},
		},
		{
			name: "partitions added: new partitions fill the members under quota in order",
			g: assigntest.NewGroup().Topic("topic1", 6).Topic("topic2", 5).
				Member("A", "topic1", "topic2").Owns("A", "topic1", 0, 2).Owns("A", "topic2", 0).
				Member("B", "topic1", "topic2").Owns("B", "topic1", 1).Owns("B", "topic2", 1, 2),
			want: map[string]string{"A": "topic1:0,2,3,4 topic2:0", "B": "topic1:1,5 topic2:1,2,3,4"},
		},
		{
			name: "member joins: each owner keeps its quota, the newcomer takes what they give up",
			g: assigntest.NewGroup().Topic("topic1", 3).Topic("topic2", 3).
				Member("A", "topic1", "topic2").Owns("A", "topic1", 0, 2).Owns("A", "topic2", 0).
				Member("B", "topic1", "topic2").Owns("B", "topic1", 1).Owns("B", "topic2", 1, 2).
				Member("C", "topic1", "topic2"),
			want: map[string]string{"A": "topic1:0,2", "B": "topic1:1 topic2:1", "C": "topic2:0,2"},
		},
		{
			name: "member leaves: its partitions go to the survivors in member order",
			g: assigntest.NewGroup().Topic("topic1", 3).Topic("topic2", 3).
				Member("A", "topic1", "topic2").Owns("A", "topic1", 0).Owns("A", "topic2", 0).
				Member("B", "topic1", "topic2").Owns("B", "topic1", 1).Owns("B", "topic2", 1),
			want: map[string]string{"A": "topic1:0,2 topic2:0", "B": "topic1:1 topic2:1,2"},
		},
		{
			name: "subscription removed: the unsubscribed topic's partitions are dropped",
			g: assigntest.NewGroup().Topic("topic1", 2).Topic("topic2", 2).
				Member("A", "topic2").Owns("A", "topic1", 0).Owns("A", "topic2", 0).
				Member("B", "topic2").Owns("B", "topic1", 1).Owns("B", "topic2", 1),
			want: map[string]string{"A": "topic2:0", "B": "topic2:1"},
		},
		{
			name: "the member that owns the extra partition keeps it (Kafka 4.1)",
			g: assigntest.NewGroup().Topic("topic1", 5).
				Member("A", "topic1").Owns("A", "topic1", 0, 1).
				Member("B", "topic1").Owns("B", "topic1", 2, 3, 4),
			want: map[string]string{"A": "topic1:0,1", "B": "topic1:2,3,4"},
		},
	})
}

// The scenarios of Kafka's UniformHeterogeneousAssignmentBuilderTest, in
// our words; where the broker's topic order is by partitions per
// subscriber, then subscribers, these results are the broker's.
func TestKIP848UniformHeterogeneous(t *testing.T) {
	runKIP848Table(t, assign.KIP848Uniform(), []layoutCase{
		{
			name: "one member without subscriptions",
			g:    assigntest.NewGroup().Topic("topic1", 3).Member("A", "topic1").Member("B"),
			want: map[string]string{"A": "topic1:0,1,2", "B": ""},
		},
		{
			name: "first assignment: the least loaded subscriber takes the next partition",
			g: assigntest.NewGroup().Topic("topic1", 3).Topic("topic3", 6).
				Member("A", "topic1", "topic3").Member("B", "topic3"),
			want: map[string]string{"A": "topic1:0,1,2 topic3:4", "B": "topic3:0,1,2,3,5"},
		},
		{
			name: "more subscribers than partitions",
			g: assigntest.NewGroup().Topic("topic1", 2).Topic("topic3", 2).
				Member("A", "topic3").Member("B", "topic3").Member("C", "topic3").Member("D", "topic1"),
			want: map[string]string{"A": "topic3:0", "B": "topic3:1", "C": "", "D": "topic1:0,1"},
		},
		{
			name: "unbalanced previous assignment: partitions move from the most to the least loaded",
			g: assigntest.NewGroup().Topic("topic1", 6).Topic("topic2", 4).Topic("topic3", 4).
				Member("A", "topic1").Owns("A", "topic1", 0, 1, 2).
				Member("B", "topic1", "topic2").Owns("B", "topic1", 3).Owns("B", "topic2", 0).
				Member("C", "topic1", "topic2", "topic3").Owns("C", "topic1", 4, 5).Owns("C", "topic2", 1, 2, 3).Owns("C", "topic3", 0, 1, 2, 3),
			want: map[string]string{"A": "topic1:0,1,2,5", "B": "topic1:3 topic2:0,1,2,3", "C": "topic1:4 topic3:0,1,2,3"},
		},
		{
			name: "partitions added",
			g: assigntest.NewGroup().Topic("topic1", 6).Topic("topic2", 5).Topic("topic3", 3).Topic("topic4", 3).
				Member("A", "topic1", "topic3").Owns("A", "topic1", 0, 1, 2, 3).Owns("A", "topic3", 0, 1).
				Member("B", "topic1", "topic2", "topic3", "topic4").Owns("B", "topic2", 0, 1, 2).Owns("B", "topic4", 0, 1, 2),
			want: map[string]string{"A": "topic1:0,1,2,3,4,5 topic3:0,1,2", "B": "topic2:0,1,2,3,4 topic4:0,1,2"},
		},
		{
			name: "member joins and partitions are added",
			g: assigntest.NewGroup().Topic("topic1", 6).Topic("topic2", 7).
				Member("A", "topic1").Owns("A", "topic1", 0, 2).Owns("A", "topic2", 0).
				Member("B", "topic1", "topic2").Owns("B", "topic1", 1).Owns("B", "topic2", 1, 2).
				Member("C", "topic1", "topic2"),
			want: map[string]string{"A": "topic1:0,2,3,4,5", "B": "topic1:1 topic2:1,2,6", "C": "topic2:0,3,4,5"},
		},
		{
			name: "member leaves: its partitions go to the topics' remaining subscribers",
			g: assigntest.NewGroup().Topic("topic1", 3).Topic("topic2", 8).Topic("topic3", 3).
				Member("A", "topic1", "topic3").Owns("A", "topic1", 0, 1, 2).Owns("A", "topic3", 0, 1).
				Member("B", "topic2").Owns("B", "topic2", 3, 4, 5, 6),
			want: map[string]string{"A": "topic1:0,1,2 topic3:0,1,2", "B": "topic2:0,1,2,3,4,5,6,7"},
		},
		{
			name: "subscription removed",
			g: assigntest.NewGroup().Topic("topic1", 3).Topic("topic2", 5).
				Member("A", "topic1").Owns("A", "topic1", 0, 2).Owns("A", "topic2", 1, 3).
				Member("B", "topic1", "topic2").Owns("B", "topic1", 1).Owns("B", "topic2", 0, 2, 4),
			want: map[string]string{"A": "topic1:0,1,2", "B": "topic2:0,1,2,3,4"},
		},
		{
			// The broker counts subscribed names, missing topics included:
			// B naming a topic that does not exist makes the group
			// heterogeneous although both subscribe to the same existing
			// topics, and the heterogeneous builder runs.
			name: "one member owns everything, the other nothing: each topic balanced from its end",
			g: assigntest.NewGroup().Topic("topic1", 2).Topic("topic2", 2).Topic("topic3", 2).
				Member("A", "topic1", "topic2", "topic3").Owns("A", "topic1", 0, 1).Owns("A", "topic2", 0, 1).Owns("A", "topic3", 0, 1).
				Member("B", "topic1", "topic2", "topic3", "gone"),
			want: map[string]string{"A": "topic2:0 topic3:0,1", "B": "topic1:0,1 topic2:1"},
		},
	})
}

// The broker decides between its two builders by subscribed names, missing
// topics included (ModernGroup.subscriptionType): the same existing topics
// with a different missing one is HETEROGENEOUS, and the two builders split
// an odd count differently.
func TestKIP848UniformSubscriptionTypeCountsNames(t *testing.T) {
	base := assigntest.NewGroup().Topic("t", 3).Protocol(assign.Eager)
	same := base.Member("A", "t", "gone").Member("B", "t", "gone").Build()
	r := run(t, assign.KIP848Uniform(), same, nil)
	wantLayout(t, r, map[string]string{"A": "t:0", "B": "t:1,2"}) // homogeneous: the extra to the last
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "gone") {
		t.Errorf("warnings %q do not name the missing topic", r.Warnings)
	}
	differ := assigntest.NewGroup().Topic("t", 3).Protocol(assign.Eager).Member("A", "t", "gone").Member("B", "t").Build()
	wantLayout(t, run(t, assign.KIP848Uniform(), differ, nil),
		map[string]string{"A": "t:0,2", "B": "t:1"}) // heterogeneous: dealt least loaded first
}

// The scenarios of Kafka's server-side RangeAssignorTest, in our words.
func TestKIP848Range(t *testing.T) {
	runKIP848Table(t, assign.KIP848Range(), []layoutCase{
		{
			name: "one member without topics",
			g:    assigntest.NewGroup().Topic("t1", 3).Member("A"),
			want: map[string]string{"A": ""},
		},
		{
			name: "same subscriptions: co-partitioned ranges",
			g:    assigntest.NewGroup().Topic("t1", 3).Topic("t2", 3).Member("A", "t1", "t2").Member("B", "t1", "t2"),
			want: map[string]string{"A": "t1:0,1 t2:0,1", "B": "t1:2 t2:2"},
		},
		{
			name: "different subscriptions: each topic split over its own subscribers",
			g: assigntest.NewGroup().Topic("t1", 3).Topic("t2", 3).Topic("t3", 2).
				Member("A", "t1", "t2").Member("B", "t3").Member("C", "t2", "t3"),
			want: map[string]string{"A": "t1:0,1,2 t2:0,1", "B": "t3:0", "C": "t2:2 t3:1"},
		},
		{
			name: "more members than partitions",
			g:    assigntest.NewGroup().Topic("t1", 2).Member("A", "t1").Member("B", "t1").Member("C", "t1"),
			want: map[string]string{"A": "t1:0", "B": "t1:1", "C": ""},
		},
		{
			name: "static members by instance id, not member id",
			g: assigntest.NewGroup().Topic("t1", 3).
				Member("A", "t1").Static("A", "i2").Member("B", "t1").Static("B", "i1"),
			want: map[string]string{"A": "t1:2", "B": "t1:0,1"},
		},
		{
			name: "static members before dynamic ones",
			g: assigntest.NewGroup().Topic("t1", 3).
				Member("A", "t1").Member("B", "t1").Static("B", "x").Member("C", "t1"),
			want: map[string]string{"A": "t1:1", "B": "t1:0", "C": "t1:2"},
		},
		{
			name: "not sticky: ownership is ignored",
			g: assigntest.NewGroup().Topic("t1", 4).
				Member("A", "t1").Owns("A", "t1", 2, 3).Member("B", "t1").Owns("B", "t1", 0, 1),
			want: map[string]string{"A": "t1:0,1", "B": "t1:2,3"},
		},
		coPartitioned,
		{
			// KAFKA-16694: no rack awareness. range@1 would give A the
			// partition on its rack.
			name: "racks are ignored",
			g: assigntest.NewGroup().Topic("t1", 2).Racks("t1", []string{"az2"}, []string{"az1"}).
				Member("A", "t1").Rack("A", "az1").Member("B", "t1").Rack("B", "az2"),
			want: map[string]string{"A": "t1:0", "B": "t1:1"},
		},
	})
}

// Both KIP-848 assignors serve COOPERATIVE groups too (the policy may put
// them behind cooperative-sticky), under Run's KIP-429 post-pass: a
// partition moving between live members is revoked first and handed out in
// the follow-up.
func TestKIP848Cooperative(t *testing.T) {
	for _, a := range []assign.Assignor{assign.KIP848Uniform(), assign.KIP848Range()} {
		t.Run(assign.Ref(a), func(t *testing.T) {
			if got := a.Protocols(); !slices.Equal(got, []assign.RebalanceProtocol{assign.Cooperative, assign.Eager}) {
				t.Fatalf("protocols %v", got)
			}
			g := assigntest.NewGroup().Generation(4).Topic("t1", 4).Protocol(assign.Cooperative).
				Member("B", "t1").Owns("B", "t1", 0, 1, 2, 3).Gen("B", 3).
				Member("A", "t1").Build()
			r := run(t, a, g, nil)
			if !r.FollowupRequired || len(r.Pending) == 0 {
				t.Fatalf("nothing withheld: %+v", r)
			}
			next := assigntest.NextGroup(g, r)
			r2 := run(t, a, next, nil, assigntest.Balanced())
			if r2.FollowupRequired {
				t.Fatalf("second round still pending %v", r2.Pending)
			}
		})
	}
}
