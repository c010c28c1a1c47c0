package releasecheck

import (
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

var t0 = time.Date(2026, 12, 2, 3, 0, 0, 0, time.UTC)

// at is t0 plus ms milliseconds.
func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// decision builds a cooperative-sticky round at ms after t0; withheld
// lists "topic", partitions... that the round revokes and withholds.
type decision struct {
	gen      int32
	ms       int
	proto    string
	eager    bool
	withheld []int32
	cut      int32 // the withheld count beyond the list (a capped list)
	members  int32 // 0: 3
	shadow   bool
}

func (d decision) proto3() *assigndv1.Decision {
	name, rp := "cooperative-sticky", assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE
	if d.proto != "" {
		name = d.proto
	}
	if d.eager {
		rp = assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
	}
	members := d.members
	if members == 0 {
		members = 3
	}
	out := &assigndv1.Decision{Time: timestamppb.New(at(d.ms)), GenerationId: d.gen, ProtocolName: name, RebalanceProtocol: rp,
		MemberCount: members, Shadow: d.shadow}
	if len(d.withheld) > 0 || d.cut > 0 {
		out.Withheld = int32(len(d.withheld)) + d.cut
		out.Revoked = out.Withheld
		out.FollowupRequired = true
		if len(d.withheld) > 0 {
			tps := []*assigndv1.TopicPartitions{{Topic: "orders", Partitions: d.withheld}}
			out.WithheldPartitions, out.RevokedPartitions = tps, tps
		}
	}
	return out
}

func decisions(ds ...decision) []*assigndv1.Decision {
	out := make([]*assigndv1.Decision, len(ds))
	for i, d := range ds {
		out[i] = d.proto3()
	}
	return out
}

func TestEvaluate(t *testing.T) {
	cfg := DefaultConfig()
	for _, tc := range []struct {
		name    string
		cfg     func(*Config)
		before  *decision
		ds      []decision
		now     int // ms after t0
		ended   bool
		missed  int64
		fail    []Check
		reason  string // a word of the first failure's reason
		pending bool
		chains  int
		longest time.Duration // the longest unowned
		part    string
	}{
		{name: "rolling restart: each join withholds, each follow-up completes",
			ds: []decision{
				{gen: 2, ms: 0}, {gen: 3, ms: 1000, withheld: []int32{0, 1}}, {gen: 4, ms: 1800},
				{gen: 5, ms: 5000}, {gen: 6, ms: 6000, withheld: []int32{2}}, {gen: 7, ms: 6500},
			},
			now: 20000, ended: true, chains: 2, longest: 800 * time.Millisecond, part: "orders[0]"},
		{name: "the protocol name is not the expected one",
			ds:  []decision{{gen: 2, ms: 0}, {gen: 3, ms: 1000, proto: "sticky", eager: true}},
			now: 2000, fail: []Check{CheckProtocol, CheckEager}, reason: `negotiated "sticky"`},
		{name: "eager under cooperative-sticky: the first bounce of an upgrade",
			ds:  []decision{{gen: 3, ms: 1000, eager: true}},
			now: 2000, fail: []Check{CheckEager}, reason: "EAGER"},
		{name: "an eager group the check was told to accept",
			cfg: func(c *Config) { c.Expect, c.AllowEager = "range", true },
			ds:  []decision{{gen: 3, ms: 1000, proto: "range", eager: true}},
			now: 2000},
		{name: "a follow-up that came too late",
			ds:  []decision{{gen: 3, ms: 0, withheld: []int32{4}}, {gen: 4, ms: 31000}},
			now: 32000, fail: []Check{CheckFollowup, CheckUnowned}, reason: "took 31s", chains: 1, longest: 31 * time.Second, part: "orders[4]"},
		{name: "a follow-up chain of two rounds within the bound",
			cfg: func(c *Config) { c.MaxUnowned = 0 },
			ds:  []decision{{gen: 3, ms: 0, withheld: []int32{4}}, {gen: 4, ms: 2000, withheld: []int32{4}}, {gen: 5, ms: 4000}},
			now: 5000, chains: 1, longest: 4 * time.Second, part: "orders[4]"},
		{name: "a follow-up that never came, past its bound",
			ds:  []decision{{gen: 3, ms: 0, withheld: []int32{4}}},
			now: 40000, fail: []Check{CheckFollowup, CheckUnowned}, reason: "no round has completed", longest: 40 * time.Second, part: "orders[4]"},
		{name: "a follow-up not yet come, within its bound: pending",
			ds:  []decision{{gen: 3, ms: 0, withheld: []int32{4}}},
			now: 3000, ended: true, pending: true, longest: 3 * time.Second, part: "orders[4]"},
		{name: "a chain opened before the start completes after it",
			before: &decision{gen: 3, ms: 0, withheld: []int32{7}},
			ds:     []decision{{gen: 4, ms: 900}},
			now:    5000, chains: 1, longest: 900 * time.Millisecond, part: "orders[7]"},
		{name: "a partition unowned too long inside a chain that kept its bound",
			ds:  []decision{{gen: 3, ms: 0, withheld: []int32{1, 2}}, {gen: 4, ms: 4000, withheld: []int32{2}}, {gen: 5, ms: 7000}},
			now: 8000, fail: []Check{CheckUnowned}, reason: "orders[2] was unowned for 7s, from generation 3", chains: 1, longest: 7 * time.Second, part: "orders[2]"},
		{name: "a capped withheld list keeps unlisted clocks running",
			ds:  []decision{{gen: 3, ms: 0, withheld: []int32{1}}, {gen: 4, ms: 6000, cut: 1}, {gen: 5, ms: 6100}},
			now: 7000, fail: []Check{CheckUnowned}, reason: "orders[1] was unowned for 6.1s", chains: 1, longest: 6100 * time.Millisecond, part: "orders[1]"},
		{name: "no decision within --idle",
			now: 121000, fail: []Check{CheckIdle}, reason: "no decision"},
		{name: "no decision yet, within --idle",
			now: 60000},
		{name: "no decision in a whole window shorter than --idle",
			now: 60000, ended: true, fail: []Check{CheckIdle}},
		{name: "generations formed without assignd",
			before: &decision{gen: 2, ms: 0},
			ds:     []decision{{gen: 5, ms: 1000}},
			now:    7000, fail: []Check{CheckGap}, reason: "generations 3 to 4"},
		{name: "a fresh gap waits for a record that may arrive late",
			before: &decision{gen: 2, ms: 0},
			ds:     []decision{{gen: 5, ms: 1000}},
			now:    5000, pending: true},
		{name: "a recreated group restarts its generations: no gap",
			before: &decision{gen: 9, ms: 0},
			ds:     []decision{{gen: 1, ms: 1000}},
			now:    2000},
		{name: "decisions dropped before the check saw them",
			ds:  []decision{{gen: 3, ms: 0}},
			now: 1000, missed: 2, fail: []Check{CheckMissed}, reason: "2 decision(s)"},
		{name: "fewer members at the end than expected, no --idle to wait",
			cfg: func(c *Config) { c.MinMembers, c.Idle = 4, 0 },
			ds:  []decision{{gen: 3, ms: 0}},
			now: 1000, ended: true, fail: []Check{CheckMembers}, reason: "3 members, want at least 4"},
		{name: "members are judged at the end only",
			cfg: func(c *Config) { c.MinMembers, c.Idle = 4, 0 },
			ds:  []decision{{gen: 3, ms: 0}},
			now: 1000},
		{name: "a member left and came back within --idle",
			cfg: func(c *Config) { c.MinMembers = 4 },
			ds:  []decision{{gen: 3, ms: 0, members: 4}, {gen: 4, ms: 1000}, {gen: 5, ms: 90000, members: 4}},
			now: 100000, ended: true},
		{name: "a member left and did not come back within --idle",
			cfg: func(c *Config) { c.MinMembers = 4 },
			ds:  []decision{{gen: 3, ms: 0, members: 4}, {gen: 4, ms: 1000}},
			now: 122000, fail: []Check{CheckIdle}, reason: "3 members since generation 4, 2m1s ago"},
		{name: "a member away at the end of the window is waited for",
			cfg: func(c *Config) { c.MinMembers = 4 },
			ds:  []decision{{gen: 3, ms: 0, members: 4}, {gen: 4, ms: 1000}},
			now: 5000, ended: true, pending: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := cfg
			if tc.cfg != nil {
				tc.cfg(&c)
			}
			o := Observation{Decisions: decisions(tc.ds...), Start: t0, Now: at(tc.now), Ended: tc.ended, Missed: tc.missed}
			if tc.before != nil {
				o.Before = tc.before.proto3()
				o.Start = at(tc.before.ms + 1)
			}
			r := Evaluate(c, o)
			var got []Check
			for _, f := range r.Failures {
				got = append(got, f.Check)
			}
			if !slices.Equal(got, tc.fail) {
				t.Fatalf("failures %v, want %v: %+v", got, tc.fail, r.Failures)
			}
			if tc.reason != "" && !strings.Contains(r.Failures[0].Reason, tc.reason) {
				t.Errorf("reason %q lacks %q", r.Failures[0].Reason, tc.reason)
			}
			if r.Passed() != (len(tc.fail) == 0) || r.Pending != tc.pending || r.FollowupChains != tc.chains ||
				time.Duration(r.LongestUnowned) != tc.longest || r.UnownedPartition != tc.part {
				t.Errorf("passed %t, pending %t, chains %d, longest unowned %s %s; want pending %t, chains %d, %s %s",
					r.Passed(), r.Pending, r.FollowupChains, r.UnownedPartition, r.LongestUnowned, tc.pending, tc.chains, tc.part, tc.longest)
			}
			if r.Decisions != len(tc.ds) {
				t.Errorf("%d decisions counted, want %d", r.Decisions, len(tc.ds))
			}
		})
	}
}

// TestEvaluateDeterministic: the same decisions give the same report,
// whichever order the map of open clocks is walked in.
func TestEvaluateDeterministic(t *testing.T) {
	ds := decisions(decision{gen: 3, ms: 0, withheld: []int32{9, 3, 5, 1, 7}})
	first := Evaluate(DefaultConfig(), Observation{Decisions: ds, Start: t0, Now: at(9000)})
	for range 20 {
		r := Evaluate(DefaultConfig(), Observation{Decisions: ds, Start: t0, Now: at(9000)})
		if r.UnownedPartition != first.UnownedPartition || r.Failures[0].Reason != first.Failures[0].Reason {
			t.Fatalf("report changed between runs: %s %q, then %s %q", first.UnownedPartition, first.Failures[0].Reason,
				r.UnownedPartition, r.Failures[0].Reason)
		}
	}
	if first.UnownedPartition != "orders[1]" {
		t.Errorf("longest unowned %s, want the first partition in order, orders[1]", first.UnownedPartition)
	}
}
