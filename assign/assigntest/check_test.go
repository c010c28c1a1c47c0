package assigntest_test

import (
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

func tp(topic string, ps ...int32) assign.TopicPartitions {
	return assign.TopicPartitions{Topic: topic, Partitions: ps}
}

func tps(l ...assign.TopicPartitions) []assign.TopicPartitions { return l }

// eagerGroup: a subscribes to t0 (4 partitions) and t1 (2), b to t0; x has
// no subscriber.
func eagerGroup() *assign.Group {
	return assigntest.NewGroup().Topic("t0", 4).Topic("t1", 2).Topic("x", 3).
		Member("a", "t0", "t1").Member("b", "t0").Build()
}

// eagerResult is a valid range result for eagerGroup.
func eagerResult() *assign.Result {
	return &assign.Result{
		Assignor: "range", Version: 1, Protocol: assign.Eager,
		Members: []assign.MemberAssignment{
			{ID: "a", Assigned: tps(tp("t0", 0, 1), tp("t1", 0, 1))},
			{ID: "b", Assigned: tps(tp("t0", 2, 3))},
		},
		Stats: assign.Stats{Partitions: 6, Imbalance: 2},
	}
}

// coopGroup: a owned all of t0 and must give half to b.
func coopGroup() *assign.Group {
	return assigntest.NewGroup().Protocol(assign.Cooperative).Topic("t0", 4).
		Member("a", "t0").Owns("a", "t0", 0, 1, 2, 3).Gen("a", 1).
		Member("b", "t0").Build()
}

// coopResult is a valid first cooperative round for coopGroup.
func coopResult() *assign.Result {
	return &assign.Result{
		Assignor: "cooperative-sticky", Version: 1, Protocol: assign.Cooperative,
		Members: []assign.MemberAssignment{
			{ID: "a", Assigned: tps(tp("t0", 0, 1)), Revoked: tps(tp("t0", 2, 3))},
			{ID: "b"},
		},
		Pending:          tps(tp("t0", 2, 3)),
		FollowupRequired: true,
		Stats:            assign.Stats{Partitions: 2, Moved: 2, Revoked: 2, Pending: 2, Imbalance: 0},
	}
}

func TestCheckAcceptsValidResults(t *testing.T) {
	if err := assigntest.Check(eagerGroup(), eagerResult()); err != nil {
		t.Errorf("eager: %v", err)
	}
	if err := assigntest.Check(coopGroup(), coopResult(), assigntest.Balanced()); err != nil {
		t.Errorf("cooperative: %v", err)
	}
}

func TestCheckCatchesEachViolation(t *testing.T) {
	tests := []struct {
		name   string
		coop   bool
		break_ func(g *assign.Group, r *assign.Result)
		opts   []assigntest.CheckOption
		want   assigntest.Kind
		msg    string // a fragment the message must contain
	}{
		{name: "no assignor", break_: func(g *assign.Group, r *assign.Result) { r.Assignor = "" },
			want: assigntest.KindResult, msg: "no assignor"},
		{name: "unspecified protocol", break_: func(g *assign.Group, r *assign.Result) { r.Protocol = assign.ProtocolUnspecified },
			want: assigntest.KindResult, msg: "UNSPECIFIED"},
		{name: "protocol differs from the group's", break_: func(g *assign.Group, r *assign.Result) { g.Protocol = assign.Cooperative },
			want: assigntest.KindResult, msg: "group runs COOPERATIVE"},
		{name: "members unsorted", break_: func(g *assign.Group, r *assign.Result) { r.Members[0], r.Members[1] = r.Members[1], r.Members[0] },
			want: assigntest.KindMemberOrder, msg: `"a" comes after "b"`},
		{name: "member missing", break_: func(g *assign.Group, r *assign.Result) { r.Members = r.Members[:1] },
			want: assigntest.KindMissingMember, msg: `"b"`},
		{name: "member twice", break_: func(g *assign.Group, r *assign.Result) {
			r.Members = append(r.Members, assign.MemberAssignment{ID: "b"})
		}, want: assigntest.KindDuplicateMember, msg: `"b"`},
		{name: "stranger", break_: func(g *assign.Group, r *assign.Result) {
			r.Members = append(r.Members, assign.MemberAssignment{ID: "zed"})
		}, want: assigntest.KindUnknownMember, msg: `"zed"`},
		{name: "topics unsorted", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[0].Assigned = tps(tp("t1", 0, 1), tp("t0", 0, 1))
		}, want: assigntest.KindUnsorted, msg: `topic "t0" listed after "t1"`},
		{name: "partitions unsorted", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[1].Assigned = tps(tp("t0", 3, 2))
		}, want: assigntest.KindUnsorted, msg: "t0-2 listed after t0-3"},
		{name: "empty entry", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[1].Assigned = append(r.Members[1].Assigned, tp("t1"))
		}, want: assigntest.KindEmptyEntry, msg: `topic "t1" has no partitions`},
		{name: "unknown topic", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[1].Assigned = append(r.Members[1].Assigned, tp("zz", 0))
		}, want: assigntest.KindUnknownTopic, msg: `"zz"`},
		{name: "beyond the partition count", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[0].Assigned[1] = tp("t1", 0, 1, 2)
		}, want: assigntest.KindOutOfRange, msg: "t1-2"},
		{name: "negative partition", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[0].Assigned[0] = tp("t0", -1, 0, 1)
		}, want: assigntest.KindOutOfRange, msg: "t0--1"},
		{name: "not subscribed", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[0].Assigned[1] = tp("t1", 0)
			r.Members[1].Assigned = append(r.Members[1].Assigned, tp("t1", 1))
		}, want: assigntest.KindNotSubscribed, msg: `member "b" Assigned: t1-1`},
		{name: "topic nobody subscribes to", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[1].Assigned = append(r.Members[1].Assigned, tp("x", 0))
		}, want: assigntest.KindNotSubscribed, msg: "x-0"},
		{name: "assigned twice", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[0].Assigned[0] = tp("t0", 0, 1, 2)
		}, want: assigntest.KindDuplicate, msg: `t0-2 is held by both member "a" and member "b"`},
		{name: "assigned and pending", coop: true, break_: func(g *assign.Group, r *assign.Result) {
			r.Pending = tps(tp("t0", 1, 2, 3))
		}, want: assigntest.KindDuplicate, msg: "t0-1 is held by both"},
		{name: "unassigned", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[1].Assigned = tps(tp("t0", 2))
		}, want: assigntest.KindUnassigned, msg: "t0-3"},
		{name: "pending under eager", break_: func(g *assign.Group, r *assign.Result) {
			r.Members[1].Assigned = tps(tp("t0", 2))
			r.Pending = tps(tp("t0", 3))
		}, want: assigntest.KindPending, msg: "under EAGER"},
		{name: "follow-up under eager", break_: func(g *assign.Group, r *assign.Result) { r.FollowupRequired = true },
			want: assigntest.KindPending, msg: "follow-up required under EAGER"},
		{name: "pending without follow-up", coop: true, break_: func(g *assign.Group, r *assign.Result) { r.FollowupRequired = false },
			want: assigntest.KindPending, msg: "FollowupRequired is false"},
		{name: "follow-up with nothing pending or revoked", coop: true, break_: func(g *assign.Group, r *assign.Result) {
			r.Members[0].Assigned, r.Members[0].Revoked = tps(tp("t0", 0, 1, 2, 3)), nil
			r.Pending = nil
			r.Stats = assign.Stats{Partitions: 4, Imbalance: 4}
		}, want: assigntest.KindPending, msg: "FollowupRequired is true"},
		{name: "given away while still owned (KIP-429)", coop: true, break_: func(g *assign.Group, r *assign.Result) {
			r.Members[1].Assigned = tps(tp("t0", 2, 3))
			r.Pending, r.FollowupRequired = nil, false
			r.Stats.Pending, r.Stats.Partitions, r.Stats.Moved = 0, 4, 0
		}, want: assigntest.KindOwnedByOther, msg: `t0-2 is assigned to "b" while "a" still owns it`},
		{name: "revoked but never owned", coop: true, break_: func(g *assign.Group, r *assign.Result) {
			r.Members[1].Revoked = tps(tp("t0", 3))
			r.Stats.Revoked = 3
		}, want: assigntest.KindRevoked, msg: "did not report owning"},
		{name: "revoked and assigned", coop: true, break_: func(g *assign.Group, r *assign.Result) {
			r.Members[0].Revoked = tps(tp("t0", 1, 2, 3))
			r.Stats.Revoked = 3
		}, want: assigntest.KindRevoked, msg: "t0-1, which the member is also assigned"},
		{name: "stats: partitions", break_: func(g *assign.Group, r *assign.Result) { r.Stats.Partitions = 5 },
			want: assigntest.KindStats, msg: "Stats.Partitions is 5 but 6"},
		{name: "stats: pending", coop: true, break_: func(g *assign.Group, r *assign.Result) { r.Stats.Pending = 1 },
			want: assigntest.KindStats, msg: "Stats.Pending is 1 but 2"},
		{name: "stats: revoked", coop: true, break_: func(g *assign.Group, r *assign.Result) { r.Stats.Revoked = 0 },
			want: assigntest.KindStats, msg: "Stats.Revoked is 0 but 2"},
		{name: "stats: negative moves", break_: func(g *assign.Group, r *assign.Result) { r.Stats.Moved = -1 },
			want: assigntest.KindStats, msg: "Stats.Moved is -1"},
		{name: "stats: cooperative moves beyond pending", coop: true, break_: func(g *assign.Group, r *assign.Result) { r.Stats.Moved = 3 },
			want: assigntest.KindStats, msg: "only 2 partitions are pending"},
		{name: "stats: imbalance", break_: func(g *assign.Group, r *assign.Result) { r.Stats.Imbalance = 1 },
			want: assigntest.KindStats, msg: "Stats.Imbalance is 1 but assigned counts range from 2 to 4"},
		{name: "stats: impossible imbalance with pending", coop: true, break_: func(g *assign.Group, r *assign.Result) { r.Stats.Imbalance = 5 },
			want: assigntest.KindStats, msg: "impossible"},
		{name: "balance: equal subscriptions", break_: func(g *assign.Group, r *assign.Result) {
			g.Members[0].Topics = []string{"t0"}
			g.Topics = g.Topics[:1]
			r.Members[0].Assigned = tps(tp("t0", 0, 1, 2))
			r.Members[1].Assigned = tps(tp("t0", 3))
			r.Stats.Partitions = 4
		}, opts: []assigntest.CheckOption{assigntest.Balanced()},
			want: assigntest.KindImbalance, msg: "range from 1 to 3"},
		{name: "balance: equal subscriptions, pending cannot even out", coop: true, break_: func(g *assign.Group, r *assign.Result) {
			g.Topics[0].Partitions = 8
			g.Members[0].Owned = tps(tp("t0", 0, 1, 2, 3, 4, 5, 6, 7))
			r.Members[0].Assigned = tps(tp("t0", 0, 1, 2, 3, 4, 5))
			r.Members[0].Revoked = tps(tp("t0", 6, 7))
			r.Stats = assign.Stats{Partitions: 6, Moved: 2, Revoked: 2, Pending: 2, Imbalance: 2}
			r.Pending = tps(tp("t0", 6, 7))
		}, opts: []assigntest.CheckOption{assigntest.Balanced()},
			want: assigntest.KindImbalance, msg: "cannot even them out"},
		{name: "balance: unequal subscriptions", break_: func(g *assign.Group, r *assign.Result) {},
			opts: []assigntest.CheckOption{assigntest.Balanced()},
			want: assigntest.KindImbalance, msg: `member "a" holds 4 partitions, some of "t0", which member "b" subscribes to holding only 2`},
		{name: "sticky: swapped for nothing", break_: func(g *assign.Group, r *assign.Result) {
			g.Members[0].Topics = []string{"t0"}
			g.Topics = g.Topics[:1]
			r.Members[0].Assigned = tps(tp("t0", 2, 3))
			r.Members[1].Assigned = tps(tp("t0", 0, 1))
			r.Stats = assign.Stats{Partitions: 4}
		}, opts: []assigntest.CheckOption{assigntest.Sticky(&assign.Result{Members: []assign.MemberAssignment{
			{ID: "a", Assigned: tps(tp("t0", 0, 1))},
			{ID: "b", Assigned: tps(tp("t0", 2, 3))},
		}})}, want: assigntest.KindNotSticky, msg: `member "a" kept 0 of its 2 previous partitions, want at least 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, r := eagerGroup(), eagerResult()
			if tt.coop {
				g, r = coopGroup(), coopResult()
			}
			tt.break_(g, r)
			err := assigntest.Check(g, r, tt.opts...)
			if !assigntest.Has(err, tt.want) {
				t.Fatalf("want a %s violation, got: %v", tt.want, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("error does not mention %q:\n%v", tt.msg, err)
			}
		})
	}
}

// KIP-429 allows handing a partition to a member that reports owning it
// even when a stale claimant lists it too (the generation rule picked the
// winner, KAFKA-13406).
func TestCheckAllowsKeepingAContestedPartition(t *testing.T) {
	g := assigntest.NewGroup().Protocol(assign.Cooperative).Topic("t0", 2).
		Member("a", "t0").Owns("a", "t0", 0).Gen("a", 2).
		Member("b", "t0").Owns("b", "t0", 0).Gen("b", 1).
		Build()
	r := &assign.Result{
		Assignor: "cooperative-sticky", Version: 1, Protocol: assign.Cooperative,
		Members: []assign.MemberAssignment{
			{ID: "a", Assigned: tps(tp("t0", 0))},
			{ID: "b", Assigned: tps(tp("t0", 1)), Revoked: tps(tp("t0", 0))},
		},
		// b revokes its stale claim and rejoins: a follow-up happens.
		FollowupRequired: true,
		Stats:            assign.Stats{Partitions: 2, Revoked: 1},
	}
	if err := assigntest.Check(g, r, assigntest.Balanced()); err != nil {
		t.Fatal(err)
	}
	// A third member that owns nothing must not get it.
	g = assigntest.Edit(g).Member("c", "t0").Build()
	r.Members[0].Assigned = nil
	r.Members = append(r.Members, assign.MemberAssignment{ID: "c", Assigned: tps(tp("t0", 0))})
	r.Stats.Imbalance = 1
	if err := assigntest.Check(g, r); !assigntest.Has(err, assigntest.KindOwnedByOther) {
		t.Fatalf("want owned-by-other, got %v", err)
	}
}

func TestCheckReportsEveryViolation(t *testing.T) {
	g, r := eagerGroup(), eagerResult()
	r.Members[0].Assigned = tps(tp("t0", 0, 1), tp("t1", 0, 1, 5))
	r.Members[1].Assigned = tps(tp("t0", 3))
	r.Members = append(r.Members, assign.MemberAssignment{ID: "c"})
	err := assigntest.Check(g, r)
	for _, k := range []assigntest.Kind{assigntest.KindOutOfRange, assigntest.KindUnassigned, assigntest.KindUnknownMember, assigntest.KindStats} {
		if !assigntest.Has(err, k) {
			t.Errorf("missing %s in:\n%v", k, err)
		}
	}
}

func TestCheckCapsReportsPerKind(t *testing.T) {
	g := assigntest.NewGroup().Topic("t0", 100).Member("a", "t0").Build()
	r := &assign.Result{Assignor: "range", Protocol: assign.Eager, Members: []assign.MemberAssignment{{ID: "a"}}}
	err := assigntest.Check(g, r)
	if n := len(assigntest.Violations(err)); n != 21 {
		t.Errorf("%d violations listed, want 20 and a summary", n)
	}
	if !strings.Contains(err.Error(), "... and 80 more unassigned violations") {
		t.Errorf("no summary line in:\n%v", err)
	}
	if n := len(assigntest.Violations(assigntest.Check(g, r, assigntest.MaxReports(0)))); n != 100 {
		t.Errorf("MaxReports(0) listed %d, want 100", n)
	}
}

func TestCheckNil(t *testing.T) {
	if err := assigntest.Check(nil, nil); !assigntest.Has(err, assigntest.KindResult) {
		t.Fatalf("got %v", err)
	}
	if assigntest.Violations(nil) != nil || assigntest.Has(nil, assigntest.KindResult) {
		t.Fatal("nil error has violations")
	}
}
