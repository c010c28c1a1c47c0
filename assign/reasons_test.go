package assign_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/wire"
)

// TestMoveReasons: one group per reason, under EAGER and COOPERATIVE where
// the assignor runs both, with and without racks. Moves are written
// "topic-partition from>to reason" as the EAGER plan gives them; under
// COOPERATIVE a partition leaving an owner, or contested, is withheld
// instead (to "").
func TestMoveReasons(t *testing.T) {
	az := func(racks ...string) []string { return racks }
	for _, tc := range []struct {
		name  string
		a     assign.Assignor
		b     *assigntest.GroupBuilder
		opts  []assign.Option
		moves []string
	}{{
		name:  "no previous owner",
		b:     assigntest.NewGroup().Topic("t", 2).Member("a", "t").Member("b", "t"),
		moves: []string{"t-0 >a no_owner", "t-1 >b no_owner"},
	}, {
		name: "owner no longer subscribes",
		b: assigntest.NewGroup().Topic("t", 1).Topic("u", 1).Member("a", "t").Member("b", "t", "u").
			Owns("a", "t", 0).Owns("a", "u", 0).Gen("a", 1),
		moves: []string{"u-0 a>b unsubscribed"},
	}, {
		name:  "over quota",
		b:     assigntest.NewGroup().Topic("t", 4).Member("a", "t").Member("b", "t").Owns("a", "t", 0, 1, 2, 3).Gen("a", 1),
		moves: []string{"t-2 a>b balance", "t-3 a>b balance"},
	}, {
		name: "over quota, racks",
		b: assigntest.NewGroup().Topic("t", 4).Racks("t", az("az1", "az2"), az("az1", "az2"), az("az1", "az2", "az3"), az("az1", "az2", "az3")).
			Member("a", "t").Rack("a", "az1").Member("b", "t").Rack("b", "az2").Owns("a", "t", 0, 1, 2, 3).Gen("a", 1),
		moves: []string{"t-0 a>b balance", "t-1 a>b balance"}, // the general plan's repair picks
	}, {
		name: "owned off its owner's rack (KIP-881 realignment)",
		b: assigntest.NewGroup().Topic("t", 2).Racks("t", az("az1"), az("az2")).
			Member("a", "t").Rack("a", "az1").Member("b", "t").Rack("b", "az2").
			Owns("a", "t", 1).Gen("a", 1).Owns("b", "t", 0).Gen("b", 1),
		moves: []string{"t-0 b>a rack", "t-1 a>b rack"},
	}, {
		name: "over quota, unequal subscriptions (repair)",
		b: assigntest.NewGroup().Topic("t", 4).Topic("u", 1).Member("a", "t", "u").Member("b", "t").
			Owns("a", "t", 0, 1, 2, 3).Owns("a", "u", 0).Gen("a", 1),
		moves: []string{"t-0 a>b balance", "t-1 a>b balance"},
	}, {
		name: "claim lost to a higher generation",
		b: assigntest.NewGroup().Topic("t", 2).Member("a", "t").Member("b", "t").
			Owns("a", "t", 0, 1).Gen("a", 3).Owns("b", "t", 0).Gen("b", 2),
		moves: []string{"t-0 b>a stale_claim", "t-1 a>b balance"},
	}, {
		name: "contested claim, same generation",
		b: assigntest.NewGroup().Topic("t", 2).Member("a", "t").Member("b", "t").
			Owns("a", "t", 0).Gen("a", 2).Owns("b", "t", 0).Gen("b", 2),
		moves: []string{"t-0 >a contested", "t-1 >b no_owner"},
	}, {
		name:  "held back by the move budget",
		b:     assigntest.NewGroup().Topic("t", 4).Member("a", "t").Member("b", "t").Owns("a", "t", 0, 1, 2, 3).Gen("a", 1),
		opts:  []assign.Option{assign.WithMaxMoves(1)},
		moves: []string{"t-2 a>b balance", "t-3 a>a held"},
	}, {
		name:  "held back by a freeze",
		b:     assigntest.NewGroup().Topic("t", 4).Member("a", "t").Member("b", "t").Owns("a", "t", 0, 1, 2, 3).Gen("a", 1),
		opts:  []assign.Option{assign.WithFreeze(true)},
		moves: []string{"t-2 a>a held", "t-3 a>a held"},
	}, {
		name: "range: rack mismatch",
		a:    assign.Range(),
		b: assigntest.NewGroup().Topic("t", 2).Racks("t", az("az1"), az("az2")).
			Member("a", "t").Rack("a", "az2").Member("b", "t").Rack("b", "az1").Owns("a", "t", 0).Owns("b", "t", 1),
		moves: []string{"t-0 a>b rack", "t-1 b>a rack"},
	}, {
		name: "sticky: over quota, history in user data",
		a:    assign.Sticky(),
		b: assigntest.NewGroup().Topic("t", 4).Member("a", "t").Member("b", "t").
			UserData("a", wire.AppendStickyUserData(nil, []assign.TopicPartitions{{Topic: "t", Partitions: []int32{0, 1, 2, 3}}}, 1, true)),
		moves: []string{"t-2 a>b balance", "t-3 a>b balance"},
	}, {
		name: "sticky: claim lost to a higher generation, in user data",
		a:    assign.Sticky(),
		b: assigntest.NewGroup().Topic("t", 2).Member("a", "t").Member("b", "t").
			UserData("a", wire.AppendStickyUserData(nil, []assign.TopicPartitions{{Topic: "t", Partitions: []int32{0, 1}}}, 3, true)).
			UserData("b", wire.AppendStickyUserData(nil, []assign.TopicPartitions{{Topic: "t", Partitions: []int32{0}}}, 2, true)),
		moves: []string{"t-0 b>a stale_claim", "t-1 a>b balance"},
	}, {
		name:  "range: layout",
		a:     assign.Range(),
		b:     assigntest.NewGroup().Topic("t", 2).Member("a", "t").Member("b", "t").Owns("a", "t", 1).Owns("b", "t", 0),
		moves: []string{"t-0 b>a balance", "t-1 a>b balance"},
	}, {
		name: "roundrobin: unsubscribed and layout",
		a:    assign.RoundRobin(),
		b: assigntest.NewGroup().Topic("t", 2).Topic("u", 1).Member("a", "t").Member("b", "t", "u").
			Owns("a", "t", 1).Owns("a", "u", 0),
		moves: []string{"t-0 >a no_owner", "t-1 a>b balance", "u-0 a>b unsubscribed"},
	}} {
		for _, p := range []assign.RebalanceProtocol{assign.Eager, assign.Cooperative} {
			a := tc.a
			if a == nil {
				a = assign.CooperativeSticky()
			}
			if !assign.Supports(a, p) {
				continue
			}
			t.Run(fmt.Sprintf("%s/%s", tc.name, p), func(t *testing.T) {
				g := tc.b.Protocol(p).Build()
				r, err := assign.Run(a, g, append(slices.Clip(tc.opts), assign.WithMoveDetail(100))...)
				if err != nil {
					t.Fatal(err)
				}
				if err := assigntest.Check(g, r); err != nil {
					t.Fatal(err)
				}
				want := slices.Clone(tc.moves)
				if p == assign.Cooperative {
					for i, mv := range want {
						from, rest, _ := strings.Cut(mv, ">")
						to, reason, _ := strings.Cut(rest, " ")
						if (!strings.HasSuffix(from, " ") && reason != "held" && reason != "stale_claim") || reason == "contested" {
							want[i] = from + "> " + reason
						} else {
							want[i] = from + ">" + to + " " + reason
						}
					}
				}
				var got []string
				for _, mv := range r.Moves {
					got = append(got, fmt.Sprintf("%s-%d %s>%s %s", mv.Topic, mv.Partition, mv.From, mv.To, mv.Reason))
				}
				if !slices.Equal(got, want) {
					t.Errorf("moves\n got %q\nwant %q", got, want)
				}
				var counts assign.ReasonCounts
				for _, mv := range r.Moves {
					counts[mv.Reason]++
				}
				if counts != r.Stats.Reasons {
					t.Errorf("Stats.Reasons %v, listed %v", r.Stats.Reasons, counts)
				}
			})
		}
	}
}

// TestMoveReasonRelief: a COOPERATIVE plan cut short withholds one
// partition its owner kept, so that the group rejoins; it goes for
// balance, and is pending without being a planned move.
func TestMoveReasonRelief(t *testing.T) {
	defer assign.SetMinRepairBudget(0)()
	defer assign.SetRepairWorkPerUnit(0)()
	g := assigntest.NewGroup().Protocol(assign.Cooperative).Topic("t", 4).Topic("u", 1).
		Member("a", "t", "u").Member("b", "t").Owns("a", "t", 0, 1, 2, 3).Gen("a", 1).Build()
	r, err := assign.Run(assign.CooperativeSticky(), g, assign.WithMoveDetail(10))
	if err != nil {
		t.Fatal(err)
	}
	want := []assign.Move{{Topic: "t", Partition: 0, From: "a", Reason: assign.ReasonBalance},
		{Topic: "u", Partition: 0, To: "a", Reason: assign.ReasonNoOwner}}
	if !slices.Equal(r.Moves, want) || r.Stats.Moved != 0 || r.Stats.Pending != 1 ||
		r.Stats.Reasons[assign.ReasonBalance] != 1 || r.Stats.Reasons[assign.ReasonNoOwner] != 1 {
		t.Errorf("moves %+v, stats %+v", r.Moves, r.Stats)
	}
}

func TestMoveReasonString(t *testing.T) {
	seen := map[string]bool{}
	for r := range assign.MoveReason(assign.NumReasons) {
		s := r.String()
		if seen[s] || strings.ContainsAny(s, " -") || r.Text() == "" || strings.HasPrefix(s, "MoveReason(") {
			t.Errorf("reason %d: name %q, text %q", r, s, r.Text())
		}
		seen[s] = true
	}
	if s := assign.MoveReason(assign.NumReasons).String(); s != fmt.Sprintf("MoveReason(%d)", assign.NumReasons) {
		t.Errorf("out of range: %q", s)
	}
}
