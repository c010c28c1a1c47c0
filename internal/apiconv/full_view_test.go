package apiconv_test

import (
	"testing"

	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// checkFullView: the full view as a client reads it is each member's
// partitions and revoked lists as messages, in the bytes proto.Marshal
// writes for them; the rest of the response is the encoded view's.
func checkFullView(t interface{ Fatalf(string, ...any) }, r *assign.Result) {
	full, encoded := apiconv.Response(r, "p", nil, true), apiconv.Response(r, "p", nil, false)
	b, err := proto.Marshal(full)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	got := &assigndv1.AssignResponse{}
	if err := proto.Unmarshal(b, got); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	for i, m := range r.Members {
		ma := encoded.GetAssignments()[i]
		ma.Partitions, ma.Revoked = messages(m.Assigned), messages(m.Revoked)
		lists, _ := proto.Marshal(&assigndv1.MemberAssignment{Partitions: ma.Partitions, Revoked: ma.Revoked})
		if unknown := full.GetAssignments()[i].ProtoReflect().GetUnknown(); string(unknown) != string(lists) {
			t.Fatalf("member %s: lists encoded as\n%x\nproto.Marshal writes\n%x", m.ID, unknown, lists)
		}
	}
	if !proto.Equal(got, encoded) {
		t.Fatalf("the full view reads as\n%v\nwant\n%v", got, encoded)
	}
}

func messages(tps []assign.TopicPartitions) []*assigndv1.TopicPartitions {
	var out []*assigndv1.TopicPartitions
	for _, tp := range tps {
		out = append(out, &assigndv1.TopicPartitions{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	return out
}

// TestFullViewAsProto: on random groups' plans, owned partitions and
// revocations included, the full view reads as its messages would.
func TestFullViewAsProto(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		g := assigntest.GroupGen(assigntest.Members(0, 8), assigntest.Topics(0, 4), assigntest.Partitions(0, 300),
			assigntest.Owned(), assigntest.Protocol(assign.Cooperative)).Draw(rt, "group")
		r, err := assign.Run(assign.CooperativeSticky(), g)
		if err != nil {
			rt.Skip(err)
		}
		checkFullView(rt, r)
	})
}

// TestFullViewEdges: what proto.Marshal leaves out (an empty topic, no
// partitions), what takes the longest varints (negative partitions), a
// member with no lists at all.
func TestFullViewEdges(t *testing.T) {
	checkFullView(t, &assign.Result{Members: []assign.MemberAssignment{
		{ID: "a", Assigned: []assign.TopicPartitions{{Topic: "", Partitions: []int32{1}}, {Topic: "t"}, {}}},
		{ID: "b"},
		{ID: "c", Assigned: []assign.TopicPartitions{{Topic: "t", Partitions: []int32{-1, 0, 127, 128, 1 << 30}}},
			Revoked: []assign.TopicPartitions{{Topic: "u", Partitions: []int32{-(1 << 31)}}}},
	}})
}
