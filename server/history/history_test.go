package history

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const (
	eager = assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_EAGER
	coop  = assigndv1.RebalanceProtocol_REBALANCE_PROTOCOL_COOPERATIVE
)

// call is one Assign as a test records it.
type call struct {
	at       time.Duration // after t0
	gen      int32
	name     string
	proto    assigndv1.RebalanceProtocol
	followup bool
	imb      int32
	topicImb int32    // worst per-topic imbalance, of topic "orders"
	withheld int32    // partitions of topic "orders", from 0
	members  []string // member ids; "static:NAME" is a static member
}

func decision(group string, c call) *assigndv1.Decision {
	name := c.name
	if name == "" {
		name = "cooperative-sticky"
	}
	p := c.proto
	if p == 0 {
		p = coop
	}
	d := &assigndv1.Decision{
		Time: timestamppb.New(t0.Add(c.at)), GroupId: group, GenerationId: c.gen, ProtocolName: name,
		RebalanceProtocol: p, FollowupRequired: c.followup, Imbalance: c.imb, Assignor: name + "@1", PolicyRule: "default",
		MemberCount: int32(len(c.members)), Withheld: c.withheld,
	}
	if c.topicImb > 0 {
		d.WorstTopicImbalance, d.WorstImbalanceTopic = c.topicImb, "orders"
	}
	if c.withheld > 0 {
		tp := &assigndv1.TopicPartitions{Topic: "orders"}
		for p := range c.withheld {
			tp.Partitions = append(tp.Partitions, p)
		}
		d.WithheldPartitions = []*assigndv1.TopicPartitions{tp}
	}
	for i, m := range c.members {
		dm := &assigndv1.DecisionMember{MemberId: m}
		if inst, ok := strings.CutPrefix(m, "static:"); ok {
			dm.MemberId, dm.GroupInstanceId = fmt.Sprintf("%s-%d", inst, i), inst
		}
		d.Members = append(d.Members, dm)
	}
	return d
}

func TestSignals(t *testing.T) {
	type S = assigndv1.GroupSignal
	const (
		storm  = assigndv1.GroupSignal_GROUP_SIGNAL_REBALANCE_STORM
		gap    = assigndv1.GroupSignal_GROUP_SIGNAL_GENERATION_GAP
		eagerC = assigndv1.GroupSignal_GROUP_SIGNAL_EAGER_UNDER_COOPERATIVE
		only   = assigndv1.GroupSignal_GROUP_SIGNAL_EAGER_ONLY_PROTOCOL
		regr   = assigndv1.GroupSignal_GROUP_SIGNAL_PROTOCOL_REGRESSION
		stuck  = assigndv1.GroupSignal_GROUP_SIGNAL_STUCK_FOLLOWUP
		imbal  = assigndv1.GroupSignal_GROUP_SIGNAL_IMBALANCE
		freq   = assigndv1.GroupSignal_GROUP_SIGNAL_FREQUENT_REBALANCES
		unown  = assigndv1.GroupSignal_GROUP_SIGNAL_LONG_UNOWNED
	)
	steady := func(n int, every time.Duration) []call {
		cs := make([]call, n)
		for i := range cs {
			cs[i] = call{at: time.Duration(i) * every, gen: int32(i + 1)}
		}
		return cs
	}
	// membership runs one decision per member list, 20 seconds apart.
	membership := func(lists ...[]string) []call {
		cs := make([]call, len(lists))
		for i, l := range lists {
			cs[i] = call{at: time.Duration(i) * 20 * time.Second, gen: int32(i + 1), members: l}
		}
		return cs
	}
	const uuid = "-0b5e9a1c-4d2f-4f7a-9a47-7c1d3e2f1a00"
	const uuid2 = "-9f5e9a1c-4d2f-4f7a-9a47-7c1d3e2f1a00"
	tests := []struct {
		name   string
		calls  []call
		now    time.Duration // after t0
		want   []S
		reason string // a substring of the first signal's reason
	}{
		{name: "quiet cooperative group", calls: steady(3, time.Minute), now: 3 * time.Minute},
		{name: "storm: 10 rebalances in 5 minutes", calls: steady(10, 20*time.Second), now: 4 * time.Minute,
			want: []S{storm}, reason: "10 rebalances in the last 5m0s (threshold 10 for 0 members)"},
		{name: "a larger group's threshold is 8 per member", now: 4 * time.Minute, calls: func() []call {
			cs := steady(12, 20*time.Second)
			for i := range cs {
				cs[i].members = []string{"a", "b", "c"}
			}
			return cs
		}()},
		{name: "no storm once the window has passed", calls: steady(10, 20*time.Second), now: 20 * time.Minute},
		{name: "rolling restart spread out is no storm", calls: steady(9, 20*time.Second), now: 3 * time.Minute},
		{name: "rolling restart: each member leaves and joins once", now: 3 * time.Minute, calls: membership(
			[]string{"a" + uuid, "b" + uuid, "c" + uuid}, []string{"b" + uuid, "c" + uuid}, []string{"a" + uuid2, "b" + uuid, "c" + uuid},
			[]string{"a" + uuid2, "c" + uuid}, []string{"a" + uuid2, "b" + uuid2, "c" + uuid}, []string{"a" + uuid2, "b" + uuid2},
			[]string{"a" + uuid2, "b" + uuid2, "c" + uuid2})},
		{name: "a flapping static member is a storm", now: 3 * time.Minute, want: []S{storm}, reason: `member instance "pod-3" joined 3 times`,
			calls: membership([]string{"static:pod-1", "static:pod-3"}, []string{"static:pod-1"}, []string{"static:pod-1", "static:pod-3"},
				[]string{"static:pod-1"}, []string{"static:pod-1", "static:pod-3"}, []string{"static:pod-1"}, []string{"static:pod-1", "static:pod-3"})},
		{name: "a flapping dynamic member, known by its client id", now: 3 * time.Minute, want: []S{storm}, reason: `member "flaky" joined 3 times`,
			calls: membership([]string{"ok" + uuid}, []string{"ok" + uuid, "flaky" + uuid}, []string{"ok" + uuid}, []string{"ok" + uuid, "flaky" + uuid2},
				[]string{"ok" + uuid}, []string{"ok" + uuid, "flaky" + uuid})},
		{name: "a storm by count and by a flapping member says both", now: 4 * time.Minute, want: []S{storm},
			reason: `11 rebalances in the last 5m0s (threshold 10 for 1 members); member instance "p" joined 5 times`, // more than the 8 decisions kept show
			calls: func() []call {
				var lists [][]string
				for i := range 11 {
					if i%2 == 0 {
						lists = append(lists, []string{"static:a"})
					} else {
						lists = append(lists, []string{"static:a", "static:p"})
					}
				}
				return membership(lists...)
			}()},
		{name: "a flapping member on kfake, whose member ids end in 32 hex digits", now: 3 * time.Minute, want: []S{storm}, reason: `member "flaky" joined 3 times`,
			calls: membership([]string{"ok-0123456789abcdef0123456789abcdef"}, []string{"ok-0123456789abcdef0123456789abcdef", "flaky-00112233445566778899aabbccddeeff"},
				[]string{"ok-0123456789abcdef0123456789abcdef"}, []string{"ok-0123456789abcdef0123456789abcdef", "flaky-ffeeddccbbaa99887766554433221100"},
				[]string{"ok-0123456789abcdef0123456789abcdef"}, []string{"ok-0123456789abcdef0123456789abcdef", "flaky-0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"})},
		{name: "flapping long ago is no storm", now: time.Hour, calls: membership([]string{"static:p"}, []string{}, []string{"static:p"}, []string{},
			[]string{"static:p"}, []string{}, []string{"static:p"})},
		{name: "generation gap", calls: []call{{gen: 4}, {at: time.Second, gen: 6}}, now: time.Minute,
			want: []S{gap}, reason: "generation 5 never reached assignd"},
		{name: "gap of several generations", calls: []call{{gen: 4}, {at: time.Second, gen: 8}}, now: time.Minute,
			want: []S{gap}, reason: "generations 5 to 7"},
		{name: "records arriving out of order make no gap", calls: []call{{at: time.Second, gen: 5}, {gen: 4}, {at: 3 * time.Second, gen: 7}, {at: 2 * time.Second, gen: 6}},
			now: time.Minute},
		{name: "gap forgotten after its window", calls: []call{{gen: 4}, {at: time.Second, gen: 6}}, now: 2 * time.Hour},
		{name: "retry of a generation and a restarted group are no gap", calls: []call{{gen: 4}, {at: time.Second, gen: 4}, {at: 2 * time.Second, gen: 1}}, now: time.Minute},
		{name: "EAGER under cooperative-sticky", calls: []call{{gen: 1, proto: eager}, {at: time.Second, gen: 2, proto: eager}}, now: time.Minute,
			want: []S{eagerC}, reason: "runs EAGER since 2026-01-02T03:04:05Z"},
		{name: "migration completed", calls: []call{{gen: 1, proto: eager}, {at: time.Second, gen: 2}}, now: time.Minute},
		{name: "eager-only name", calls: []call{{gen: 1, name: "range", proto: eager}}, now: time.Minute,
			want: []S{only}, reason: `protocol name "range"`},
		{name: "protocol regression", calls: []call{{gen: 1}, {at: time.Second, gen: 2, name: "roundrobin", proto: eager}}, now: time.Minute,
			want: []S{only, regr}},
		{name: "stuck follow-up", calls: []call{{gen: 1, followup: true}}, now: 3 * time.Minute,
			want: []S{stuck}, reason: "none came in 3m0s (threshold 2m0s)"},
		{name: "follow-up still within its window", calls: []call{{gen: 1, followup: true}}, now: time.Minute},
		{name: "follow-up that came", calls: []call{{gen: 1, followup: true}, {at: time.Second, gen: 2}}, now: time.Hour},
		{name: "imbalance above the threshold", calls: []call{{gen: 1, imb: 3}}, now: time.Minute,
			want: []S{imbal}, reason: "imbalance 3 partitions"},
		{name: "imbalance at the threshold", calls: []call{{gen: 1, imb: 2}}, now: time.Minute},
		{name: "one topic skewed in a balanced group", calls: []call{{gen: 1, imb: 1, topicImb: 5}}, now: time.Minute,
			want: []S{imbal}, reason: `topic "orders": 5 partitions`},
		{name: "topic skew at the threshold", calls: []call{{gen: 1, topicImb: 4}}, now: time.Minute},
		{name: "61 rebalances in an hour, never a storm", calls: steady(61, 50*time.Second), now: 50*time.Minute + 30*time.Second,
			want: []S{freq}, reason: "61 rebalances in the last hour (threshold 60)"},
		{name: "60 rebalances in an hour is the threshold", calls: steady(60, 50*time.Second), now: 50 * time.Minute},
		{name: "rebalances older than an hour are not counted", calls: steady(61, 50*time.Second), now: 2 * time.Hour},
		{name: "partitions withheld 45s until the follow-up", now: time.Minute, want: []S{unown},
			calls:  []call{{gen: 6}, {at: time.Second, gen: 7, withheld: 3, followup: true}, {at: 46 * time.Second, gen: 8}},
			reason: "3 partitions withheld at generation 7 (orders-0, orders-1, orders-2) stayed unowned 45s, until generation 8"},
		{name: "a follow-up within the threshold", now: time.Minute,
			calls: []call{{gen: 7, withheld: 3, followup: true}, {at: 10 * time.Second, gen: 8}}},
		{name: "a retry of the generation does not end the wait", now: 2 * time.Minute, want: []S{unown}, reason: "stayed unowned 50s",
			calls: []call{{gen: 7, withheld: 12, followup: true}, {at: 40 * time.Second, gen: 7, withheld: 12, followup: true}, {at: 50 * time.Second, gen: 8}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := t0.Add(tt.now)
			s, err := New(WithClock(func() time.Time { return now }))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range tt.calls {
				s.Record(decision("g", c))
			}
			sum, _, ok := s.Get("g", 0)
			if !ok {
				t.Fatal("group not found")
			}
			var got []S
			for _, f := range sum.GetSignals() {
				got = append(got, f.GetSignal())
				if f.GetReason() == "" {
					t.Errorf("%s fired without a reason", f.GetSignal())
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("signals %v, want %v (%v)", got, tt.want, sum.GetSignals())
			}
			if tt.reason != "" && !strings.Contains(sum.GetSignals()[0].GetReason(), tt.reason) {
				t.Errorf("reason %q does not say %q", sum.GetSignals()[0].GetReason(), tt.reason)
			}
		})
	}
}

func TestStoreBounds(t *testing.T) {
	s, err := New(WithDecisionsPerGroup(3), WithMaxGroups(2))
	if err != nil {
		t.Fatal(err)
	}
	for gen := int32(1); gen <= 5; gen++ {
		s.Record(decision("a", call{at: time.Duration(gen) * time.Second, gen: gen}))
	}
	sum, ds, _ := s.Get("a", 0)
	if len(ds) != 3 || ds[0].GetGenerationId() != 5 || ds[2].GetGenerationId() != 3 || sum.GetDecisionsRecorded() != 5 {
		t.Fatalf("kept %d decisions, newest generation %d, oldest %d, recorded %d; want 3, 5, 3, 5",
			len(ds), ds[0].GetGenerationId(), ds[len(ds)-1].GetGenerationId(), sum.GetDecisionsRecorded())
	}
	if _, ds, _ := s.Get("a", 2); len(ds) != 2 {
		t.Errorf("max 2 returned %d decisions", len(ds))
	}
	// A record that arrives after a newer one (its response was written
	// first) takes its place in time order.
	s.Record(decision("a", call{at: 4500 * time.Millisecond, gen: 9}))
	if _, ds, _ := s.Get("a", 0); ds[0].GetGenerationId() != 5 || ds[1].GetGenerationId() != 9 || ds[2].GetGenerationId() != 4 {
		t.Errorf("after an out-of-order record: generations %d, %d, %d; want 5, 9, 4", ds[0].GetGenerationId(), ds[1].GetGenerationId(), ds[2].GetGenerationId())
	}
	s.Record(decision("b", call{gen: 1}))
	s.Record(decision("a", call{gen: 6})) // a is now the most recently seen
	s.Record(decision("c", call{gen: 1})) // evicts b
	if _, _, ok := s.Get("b", 0); ok {
		t.Error("b, the least recently seen group, was not evicted")
	}
	if _, ds, ok := s.Get("c", 0); !ok || len(ds) != 1 {
		t.Errorf("c: found %t with %d decisions; want its one decision (the evicted group's ring reused, cleared)", ok, len(ds))
	}
	if _, _, ok := s.Get("a", 0); !ok || s.Len() != 2 {
		t.Errorf("a found %t, %d groups; want true, 2", ok, s.Len())
	}
	if _, err := New(WithMaxGroups(0)); err == nil {
		t.Error("New accepted 0 groups")
	}
}

func TestList(t *testing.T) {
	s, _ := New(WithClock(func() time.Time { return t0.Add(time.Minute) }))
	for i := range 25 {
		c := call{gen: 1}
		if i%5 == 0 {
			c.name, c.proto = "range", eager
		}
		s.Record(decision(fmt.Sprintf("team-%02d", i), c))
	}
	s.Record(decision("other", call{gen: 1}))

	var ids []string
	q := Query{Prefix: "team-", PageSize: 10}
	for pages := 0; ; pages++ {
		p, err := s.List(q)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != 26 {
			t.Fatalf("total %d, want 26", p.Total)
		}
		for _, g := range p.Groups {
			ids = append(ids, g.GetGroupId())
		}
		if p.Next == "" {
			break
		}
		if pages > 5 {
			t.Fatal("paging does not end")
		}
		q.PageToken = p.Next
	}
	if len(ids) != 25 || ids[0] != "team-00" || ids[24] != "team-24" {
		t.Fatalf("paged through %d groups %v; want team-00..team-24 in order", len(ids), ids)
	}
	for _, tt := range []struct {
		q    Query
		want int
	}{
		{Query{Signal: assigndv1.GroupSignal_GROUP_SIGNAL_EAGER_ONLY_PROTOCOL}, 5},
		{Query{Assignor: "range"}, 5},
		{Query{Assignor: "range@1"}, 5},
		{Query{Assignor: "range@2"}, 0},
		{Query{Rule: "default"}, 26},
		{Query{Rule: "canary"}, 0},
		{Query{Prefix: "oth"}, 1},
	} {
		if p, _ := s.List(tt.q); len(p.Groups) != tt.want {
			got := len(p.Groups)
			t.Errorf("List(%+v): %d groups, want %d", tt.q, got, tt.want)
		}
	}
	if _, err := s.List(Query{PageToken: "not base64!"}); !errors.Is(err, ErrPageToken) {
		t.Errorf("a made-up page token: %v, want ErrPageToken", err)
	}
	counts, groups := s.SignalCounts()
	if groups != 26 || counts[assigndv1.GroupSignal_GROUP_SIGNAL_EAGER_ONLY_PROTOCOL] != 5 {
		t.Errorf("SignalCounts: %v over %d groups; want 5 eager-only of 26", counts, groups)
	}
}

// TestFlappingBeyondKeptDecisions: joins are remembered apart from the
// decisions, so a member that flapped is caught even when the store keeps
// only the last two decisions, and named while a kept decision lists it.
func TestFlappingBeyondKeptDecisions(t *testing.T) {
	s, _ := New(WithDecisionsPerGroup(2), WithClock(func() time.Time { return t0.Add(3 * time.Minute) }))
	lists := [][]string{{"static:a"}, {"static:a", "static:p"}, {"static:a"}, {"static:a", "static:p"}, {"static:a"}, {"static:a", "static:p"}, {"static:a"}}
	for i, l := range lists {
		s.Record(decision("g", call{at: time.Duration(i) * 10 * time.Second, gen: int32(i + 1), members: l}))
	}
	sum, _, _ := s.Get("g", 0)
	if len(sum.GetSignals()) != 1 || !strings.Contains(sum.GetSignals()[0].GetReason(), `member instance "p" joined 3 times`) {
		t.Errorf("signals %v; want a storm naming p, which the second-last decision lists", sum.GetSignals())
	}
	s.Record(decision("g", call{at: 70 * time.Second, gen: 8, members: []string{"static:a"}}))
	if sum, _, _ := s.Get("g", 0); len(sum.GetSignals()) != 1 || !strings.Contains(sum.GetSignals()[0].GetReason(), "member (not in the decisions kept) joined 3 times") {
		t.Errorf("signals %v; want the storm, its member no longer in a kept decision", sum.GetSignals())
	}
}
