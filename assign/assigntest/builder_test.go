package assigntest_test

import (
	"reflect"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
)

func TestBuilder(t *testing.T) {
	b := assigntest.NewGroup().Generation(7).Protocol(assign.Cooperative).
		Topic("t0", 2).Topic("t1", 1).Racks("t1", []string{"az1", "az2"}).
		Member("m1", "t0", "t1").Owns("m1", "t0", 0).Owns("m1", "t0", 1).Owns("m1", "t1", 0).Gen("m1", 6).
		Member("m2", "t0").Static("m2", "host-2").Rack("m2", "az1").UserData("m2", []byte{1})
	want := &assign.Group{
		Generation: 7,
		Protocol:   assign.Cooperative,
		Topics: []assign.Topic{
			{Name: "t0", Partitions: 2},
			{Name: "t1", Partitions: 1, Racks: [][]string{{"az1", "az2"}}},
		},
		Members: []assign.Member{
			{ID: "m1", Topics: []string{"t0", "t1"}, Generation: 6,
				Owned: []assign.TopicPartitions{{Topic: "t0", Partitions: []int32{0, 1}}, {Topic: "t1", Partitions: []int32{0}}}},
			{ID: "m2", InstanceID: "host-2", Rack: "az1", Topics: []string{"t0"}, UserData: []byte{1}, Generation: assign.NoGeneration},
		},
	}
	g := b.Build()
	if !reflect.DeepEqual(g, want) {
		t.Fatalf("Build:\n got  %+v\n want %+v", g, want)
	}

	// Build copies: later edits do not leak into g, and Edit copies too.
	b.Member("m1", "t1").Disown("m1").Remove("m2").Topic("t0", 5).DropTopic("t1")
	if !reflect.DeepEqual(g, want) {
		t.Fatal("builder edits changed an earlier Build")
	}
	h := b.Build()
	if len(h.Members) != 1 || h.Members[0].Owned != nil || !reflect.DeepEqual(h.Members[0].Topics, []string{"t1"}) ||
		len(h.Topics) != 1 || h.Topics[0].Partitions != 5 {
		t.Fatalf("edited group %+v", h)
	}
	e := assigntest.Edit(g).Member("m3", "t0").Build()
	if len(e.Members) != 3 || len(g.Members) != 2 {
		t.Fatal("Edit changed its input")
	}
}

func TestBuilderPanicsOnUnknownMember(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	assigntest.NewGroup().Owns("nobody", "t0", 0)
}
