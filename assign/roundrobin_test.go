package assign_test

import (
	"maps"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

// The cases of Kafka's RoundRobinAssignorTest, in our words.
func TestRoundRobin(t *testing.T) {
	tests := []layoutCase{
		{
			name: "unequal subscriptions can be unbalanced",
			g: assigntest.NewGroup().Topic("t0", 2).Topic("t1", 2).
				Member("c0", "t0", "t1").Member("c1", "t1"),
			want: map[string]string{"c0": "t0:0,1 t1:1", "c1": "t1:0"},
		},
		{
			name: "skipping a member moves the shared pointer",
			g: assigntest.NewGroup().Topic("t0", 3).Topic("t1", 3).
				Member("a", "t0", "t1").Member("b", "t1").Member("c", "t0", "t1"),
			want: map[string]string{"a": "t0:0,2 t1:2", "b": "t1:0", "c": "t0:1 t1:1"},
		},
		{
			name: "racks are ignored",
			g: assigntest.NewGroup().Topic("t0", 4).
				Racks("t0", []string{"az2"}, []string{"az2"}, []string{"az1"}, []string{"az1"}).
				Member("c0", "t0").Rack("c0", "az1").
				Member("c1", "t0").Rack("c1", "az2"),
			want: map[string]string{"c0": "t0:0,2", "c1": "t0:1,3"},
		},
		{
			name: "member ids compare in UTF-16 order",
			g: assigntest.NewGroup().Topic("t", 3).
				Member("x\uE000", "t").Member("x\U00010000", "t"),
			want: map[string]string{"x\U00010000": "t:0,2", "x\uE000": "t:1"},
		},
	}
	tests = append(tests, basicEagerCases...)
	for _, c := range classicCases {
		tests = append(tests, layoutCase{c.name, c.g, c.roundRobin})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(t, assign.RoundRobin(), tt.g.Build(), nil)
			wantLayout(t, r, tt.want)
			if r.Protocol != assign.Eager || r.Assignor != assign.NameRoundRobin || r.Version != 1 {
				t.Errorf("header %s@%d %v", r.Assignor, r.Version, r.Protocol)
			}
		})
	}
}

// A static member that rejoins gets a new member id; range and roundrobin
// key their order on the instance id, so its partitions stay put
// (KIP-345, KAFKA-8500/KAFKA-9801).
func TestStaticAssignmentSurvivesMemberIDChanges(t *testing.T) {
	build := func(ids [3]string) *assign.Group {
		return assigntest.NewGroup().Topic("t1", 5).Topic("t2", 4).
			Member(ids[0], "t1", "t2").Static(ids[0], "instance-1").
			Member(ids[1], "t1", "t2").Static(ids[1], "instance-2").
			Member(ids[2], "t1", "t2").Static(ids[2], "instance-3").
			Member("dynamic", "t1", "t2").
			Build()
	}
	byInstance := func(g *assign.Group, r *assign.Result) map[string]string {
		inst := make(map[string]string)
		for _, m := range g.Members {
			inst[m.ID] = m.InstanceID
			if m.InstanceID == "" {
				inst[m.ID] = m.ID
			}
		}
		out := make(map[string]string)
		for id, l := range layout(r) {
			out[inst[id]] = l
		}
		return out
	}
	for _, a := range []assign.Assignor{assign.Range(), assign.RoundRobin()} {
		t.Run(a.Name(), func(t *testing.T) {
			g1 := build([3]string{"consumer-a", "consumer-b", "consumer-c"})
			// New ids sort the other way round.
			g2 := build([3]string{"zz-new-1", "yy-new-2", "aa-new-3"})
			before := byInstance(g1, run(t, a, g1, nil))
			after := byInstance(g2, run(t, a, g2, nil))
			if !maps.Equal(before, after) {
				t.Fatalf("assignment by instance changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}
