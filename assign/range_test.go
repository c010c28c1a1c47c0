package assign_test

import (
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// The cases of Kafka's RangeAssignorTest, in our words, plus KIP-881
// rack-aware cases worked out by hand from the reference description.
func TestRange(t *testing.T) {
	az := func(racks ...string) []string { return racks }
	off := []assign.Option{assign.WithRackAware(false)}
	threeRacks := assigntest.NewGroup().Topic("t0", 6).
		Racks("t0", az("az1"), az("az2"), az("az3"), az("az1"), az("az2"), az("az3")).
		Member("c0", "t0").Rack("c0", "az1").
		Member("c1", "t0").Rack("c1", "az2").
		Member("c2", "t0").Rack("c2", "az3")
	tests := []struct {
		name string
		g    *assigntest.GroupBuilder
		opts []assign.Option
		want map[string]string
	}{
		{
			name: "topic without partitions",
			g:    assigntest.NewGroup().Topic("empty", 0).Topic("topic", 2).Member("consumer", "empty", "topic"),
			want: map[string]string{"consumer": "topic:0,1"},
		},
		{
			name: "more consumers than partitions",
			g: assigntest.NewGroup().Topic("topic", 2).
				Member("c1", "topic").Member("c2", "topic").Member("c3", "topic").Member("c4", "topic"),
			want: map[string]string{"c1": "topic:0", "c2": "topic:1"},
		},
		{
			name: "uneven: the first n%m consumers take one more",
			g: assigntest.NewGroup().Topic("topic", 7).
				Member("c1", "topic").Member("c2", "topic").Member("c3", "topic"),
			want: map[string]string{"c1": "topic:0,1,2", "c2": "topic:3,4", "c3": "topic:5,6"},
		},
		{
			name: "instance ids compare in UTF-16 order",
			g: assigntest.NewGroup().Topic("t", 3).
				Member("a", "t").Static("a", "\uE000").
				Member("b", "t").Static("b", "\U00010000"),
			want: map[string]string{"a": "t:2", "b": "t:0,1"},
		},

		// KIP-881.
		{
			name: "racks: one topic, each member takes its rack's partitions",
			g:    threeRacks,
			want: map[string]string{"c0": "t0:0,3", "c1": "t0:1,4", "c2": "t0:2,5"},
		},
		{
			name: "racks: switched off by option",
			g:    threeRacks,
			opts: off,
			want: map[string]string{"c0": "t0:0,1", "c1": "t0:2,3", "c2": "t0:4,5"},
		},
		{
			name: "racks: allowance with the extra partition, then plain fill",
			g: assigntest.NewGroup().Topic("t0", 5).
				Racks("t0", az("az2"), az("az2"), az("az2"), az("az1"), az("az2")).
				Member("c0", "t0").Rack("c0", "az1").
				Member("c1", "t0").Rack("c1", "az2"),
			want: map[string]string{"c0": "t0:3,4", "c1": "t0:0,1,2"},
		},
		{
			name: "racks: rack-less member takes any, partitions without replicas' racks",
			g: assigntest.NewGroup().Topic("t0", 4).
				Racks("t0", az("az1"), az(), az("az1"), az("az2")).
				Member("c0", "t0").
				Member("c1", "t0").Rack("c1", "az2").
				Member("c2", "t0").Rack("c2", "az1"),
			want: map[string]string{"c0": "t0:0,1", "c1": "t0:3", "c2": "t0:2"},
		},
		{
			name: "racks: static members ordered first, then rack matching",
			g: assigntest.NewGroup().Topic("t0", 4).
				Racks("t0", az("az1"), az("az1"), az("az2"), az("az2")).
				Member("c-a", "t0").Static("c-a", "i2").Rack("c-a", "az1").
				Member("c-b", "t0").Static("c-b", "i1").Rack("c-b", "az2"),
			want: map[string]string{"c-a": "t0:0,1", "c-b": "t0:2,3"},
		},
		{
			name: "racks: member racks host no replica, gate closed",
			g: assigntest.NewGroup().Topic("t0", 4).
				Racks("t0", az("az1"), az("az2"), az("az1"), az("az2")).
				Member("c0", "t0").Rack("c0", "az3").
				Member("c1", "t0").Rack("c1", "az3"),
			want: map[string]string{"c0": "t0:0,1", "c1": "t0:2,3"},
		},
		{
			name: "racks: every partition on every rack of the topic, gate closed",
			g: assigntest.NewGroup().Topic("t0", 2).
				Racks("t0", az("az1"), az("az1")).
				Member("c0", "t0").Rack("c0", "az2").
				Member("c1", "t0").Rack("c1", "az1"),
			want: map[string]string{"c0": "t0:0", "c1": "t0:1"},
		},
		{
			name: "racks: co-partitioned topics move together",
			g: assigntest.NewGroup().Topic("t0", 4).Topic("t1", 4).
				Racks("t0", az("az1"), az("az2"), az("az1"), az("az2")).
				Racks("t1", az("az1", "az2"), az("az2"), az("az2"), az("az1")).
				Member("c0", "t0", "t1").Rack("c0", "az1").
				Member("c1", "t0", "t1").Rack("c1", "az2"),
			want: map[string]string{"c0": "t0:0,2 t1:0,2", "c1": "t0:1,3 t1:1,3"},
		},
		{
			name: "racks: co-partitioned with the extra partition",
			g: assigntest.NewGroup().Topic("t0", 3).Topic("t1", 3).
				Racks("t0", az("az2"), az("az2"), az("az1")).
				Racks("t1", az("az2"), az("az1", "az2"), az("az1")).
				Member("c0", "t0", "t1").Rack("c0", "az1").
				Member("c1", "t0", "t1").Rack("c1", "az2"),
			want: map[string]string{"c0": "t0:2 t1:2", "c1": "t0:0,1 t1:0,1"},
		},
		{
			// t0 and t1 fail the gate on their own (every partition on
			// az1 only), but t2 opens rack-aware mode, and then a
			// co-partitioned group always goes through rack matching.
			name: "racks: co-partitioned group matched although it fails the gate",
			g: assigntest.NewGroup().Topic("t0", 2).Topic("t1", 2).Topic("t2", 2).
				Racks("t0", az("az1"), az("az1")).
				Racks("t1", az("az1"), az("az1")).
				Racks("t2", az("az1"), az("az2")).
				Member("c0", "t0", "t1", "t2").Rack("c0", "az2").
				Member("c1", "t0", "t1").Rack("c1", "az1"),
			want: map[string]string{"c0": "t0:1 t1:1 t2:0,1", "c1": "t0:0 t1:0"},
		},
		{
			name: "racks: the same group without the opening topic stays plain",
			g: assigntest.NewGroup().Topic("t0", 2).Topic("t1", 2).
				Racks("t0", az("az1"), az("az1")).
				Racks("t1", az("az1"), az("az1")).
				Member("c0", "t0", "t1").Rack("c0", "az2").
				Member("c1", "t0", "t1").Rack("c1", "az1"),
			want: map[string]string{"c0": "t0:0 t1:0", "c1": "t0:1 t1:1"},
		},
		{
			name: "racks: co-partitioned with a topic that has no rack data",
			g: assigntest.NewGroup().Topic("t0", 2).Topic("t1", 2).
				Racks("t1", az("az1"), az("az2")).
				Member("c0", "t0", "t1").Rack("c0", "az2").
				Member("c1", "t0", "t1").Rack("c1", "az1"),
			want: map[string]string{"c0": "t0:0 t1:0", "c1": "t0:1 t1:1"},
		},
	}
	type rangeCase = struct {
		name string
		g    *assigntest.GroupBuilder
		opts []assign.Option
		want map[string]string
	}
	for _, c := range append(basicEagerCases, coPartitioned) {
		tests = append(tests, rangeCase{c.name, c.g, nil, c.want})
	}
	for _, c := range classicCases {
		tests = append(tests, rangeCase{c.name, c.g, nil, c.ranged})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.g.Build()
			r := run(t, assign.Range(), g, tt.opts)
			wantLayout(t, r, tt.want)
			if r.Protocol != assign.Eager || r.Assignor != assign.NameRange || r.Version != 1 {
				t.Errorf("header %s@%d %v", r.Assignor, r.Version, r.Protocol)
			}
		})
	}
}

func TestRangeWarnsAboutMissingTopics(t *testing.T) {
	g := assigntest.NewGroup().Topic("t0", 2).Member("c0", "t0", "gone").Build()
	r := run(t, assign.Range(), g, nil)
	wantLayout(t, r, map[string]string{"c0": "t0:0,1"})
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "gone") {
		t.Errorf("warnings %q do not name the missing topic", r.Warnings)
	}
}

func TestRangeRejectsCooperative(t *testing.T) {
	g := assigntest.NewGroup().Topic("t0", 2).Member("c0", "t0").Protocol(assign.Cooperative).Build()
	if _, err := assign.Run(assign.Range(), g); err == nil {
		t.Fatal("range ran a COOPERATIVE group")
	}
}
