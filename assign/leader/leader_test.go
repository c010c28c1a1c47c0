package leader_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/leader"
	"github.com/assignd/assignd/assign/wire"
)

func TestDecodeRunEncode(t *testing.T) {
	subs := []wire.Subscription{
		{Version: 3, Topics: []string{"a", "b"}, Owned: []wire.TopicPartitions{{Topic: "a", Partitions: []int32{0, 1}}}, Generation: 4, Rack: "r1"},
		{Version: 1, Topics: []string{"a", "b"}, UserData: wire.AppendCooperativeUserData(nil, 4)},
		{Version: 0, Topics: []string{"a"}},
	}
	var members []leader.JoinedMember
	for i, s := range subs {
		members = append(members, leader.JoinedMember{ID: string(rune('x' + i)), Metadata: wire.AppendSubscription(nil, &s)})
	}
	members[2].InstanceID = "static-z"
	d, err := leader.Decode(members, []assign.Topic{{Name: "a", Partitions: 4}, {Name: "b", Partitions: 2}}, 5, assign.Cooperative)
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Group.Members[0]; got.Generation != 4 || got.Rack != "r1" || len(got.Owned) != 1 {
		t.Errorf("member x decoded as %+v", got)
	}
	if d.Group.Members[2].InstanceID != "static-z" {
		t.Error("instance id lost")
	}
	if d.Versions["x"] != 3 || d.Versions["y"] != 1 || d.Versions["z"] != 0 {
		t.Errorf("versions %v", d.Versions)
	}
	r, err := assign.Run(assign.CooperativeSticky(), d.Group)
	if err != nil {
		t.Fatal(err)
	}
	if err := assigntest.Check(d.Group, r, assigntest.Balanced()); err != nil {
		t.Fatal(err)
	}
	enc := leader.Encode(r, d.Versions)
	for i, m := range r.Members {
		a, err := wire.DecodeAssignment(enc[i])
		if err != nil {
			t.Fatalf("%s: %v", m.ID, err)
		}
		if a.Version != d.Versions[m.ID] {
			t.Errorf("%s: encoded at v%d, want v%d", m.ID, a.Version, d.Versions[m.ID])
		}
		again := wire.AppendAssignment(nil, a.Version, m.Assigned, nil)
		if !bytes.Equal(again, enc[i]) {
			t.Errorf("%s: bytes differ from a direct encoding", m.ID)
		}
	}
}

func TestDecodeRejectsBadMetadata(t *testing.T) {
	_, err := leader.Decode([]leader.JoinedMember{{ID: "ok", Metadata: wire.AppendSubscription(nil, &wire.Subscription{Version: 0, Topics: []string{"a"}})},
		{ID: "bad", Metadata: []byte{0, 1, 0}}}, nil, 1, assign.ProtocolUnspecified)
	var ie *assign.InputError
	if !errors.As(err, &ie) || ie.Member != "bad" || ie.Field != "members[1].metadata" {
		t.Fatalf("got %v, want an InputError naming member bad and members[1].metadata", err)
	}
	if !errors.Is(err, assign.ErrInvalidGroup) || !errors.Is(err, wire.ErrMalformed) {
		t.Errorf("error %v must wrap ErrInvalidGroup and wire.ErrMalformed", err)
	}
}
