package request_test

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/request"
)

// checkUnmarshal: request.Unmarshal accepts what proto.Unmarshal accepts
// and gives the same message, and the lists it shares arrays for can be
// appended to without touching one another.
func checkUnmarshal(t interface {
	Helper()
	Fatalf(string, ...any)
}, b []byte) {
	t.Helper()
	want, got := &assigndv1.AssignRequest{}, &assigndv1.AssignRequest{}
	wantErr, gotErr := proto.Unmarshal(b, want), request.Unmarshal(b, got)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("proto.Unmarshal: %v; request.Unmarshal: %v", wantErr, gotErr)
	}
	if wantErr != nil {
		return
	}
	if !proto.Equal(want, got) {
		t.Fatalf("request.Unmarshal gave\n%v\nproto.Unmarshal\n%v", got, want)
	}
	for _, m := range got.GetMembers() {
		for _, tp := range m.GetOwnedPartitions() {
			if ps := tp.GetPartitions(); cap(ps) != len(ps) {
				t.Fatalf("member %q, topic %q: partitions of capacity %d for %d, so an append would write a neighbour's", m.GetMemberId(), tp.GetTopic(), cap(ps), len(ps))
			}
		}
	}
}

// TestUnmarshalAsProto: on random groups in the explicit and the raw form,
// with partition racks, weights and the other fields set, marshaled as
// protobuf does and merged from two messages as protobuf allows, the two
// decoders agree.
func TestUnmarshalAsProto(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		g := assigntest.GroupGen(assigntest.Members(0, 8), assigntest.Topics(0, 4), assigntest.Partitions(0, 10), assigntest.Owned(),
			assigntest.WithRacks(), assigntest.StaticMembers(), assigntest.MissingTopics(), assigntest.UnicodeIDs()).Draw(rt, "group")
		req := randomRequest(rt, g)
		b, err := proto.Marshal(req)
		if err != nil {
			rt.Fatal(err)
		}
		checkUnmarshal(rt, b)
		// Protobuf merges concatenated messages: the members and owned
		// lists of both, the last of each scalar.
		other, _ := proto.Marshal(randomRequest(rt, g))
		checkUnmarshal(rt, append(b, other...))
	})
}

// randomRequest writes g as a request, each member drawn in the explicit
// or the raw form.
func randomRequest(rt *rapid.T, g *assign.Group) *assigndv1.AssignRequest {
	req := &assigndv1.AssignRequest{
		GroupId: rapid.String().Draw(rt, "group_id"), GenerationId: g.Generation, ProtocolName: "cooperative-sticky",
		View:            assigndv1.AssignmentView(rapid.IntRange(0, 2).Draw(rt, "view")),
		MoveDetailLimit: rapid.Int32Range(0, 10).Draw(rt, "move_detail_limit"),
		WeightUnit:      rapid.StringN(0, 3, -1).Draw(rt, "weight_unit"),
	}
	for _, tp := range g.Topics {
		t := &assigndv1.Topic{Name: tp.Name, PartitionCount: tp.Partitions}
		for p, racks := range tp.Racks {
			t.PartitionRacks = append(t.PartitionRacks, &assigndv1.PartitionRacks{Partition: int32(p), Racks: racks})
		}
		req.Topics = append(req.Topics, t)
		if rapid.Bool().Draw(rt, "weighted") {
			req.PartitionWeights = append(req.PartitionWeights, &assigndv1.PartitionWeights{Topic: tp.Name,
				Weights: rapid.SliceOfN(rapid.Float64Range(-1, 1e6), int(max(tp.Partitions, 0)), int(max(tp.Partitions, 0))).Draw(rt, "weights")})
		}
	}
	for _, m := range g.Members {
		if !rapid.Bool().Draw(rt, "raw") {
			req.Members = append(req.Members, apiconv.MemberToAPI(m))
			continue
		}
		pm := &assigndv1.Member{MemberId: m.ID, Metadata: wire.AppendSubscription(nil, &wire.Subscription{Version: wire.MaxVersion,
			Topics: m.Topics, UserData: m.UserData, Owned: m.Owned, Generation: m.Generation, Rack: m.Rack})}
		if m.InstanceID != "" {
			pm.GroupInstanceId = &m.InstanceID
		}
		req.Members = append(req.Members, pm)
	}
	return req
}

// FuzzUnmarshal: on any bytes, request.Unmarshal and proto.Unmarshal
// agree (checkUnmarshal). The seeds are the examples, and the encodings
// protobuf accepts besides its own: unpacked partitions, fields of an
// unexpected wire type, unknown fields, a name that is not UTF-8.
func FuzzUnmarshal(f *testing.F) {
	explicit, _ := proto.Marshal(&assigndv1.AssignRequest{ProtocolName: "cooperative-sticky", Topics: []*assigndv1.Topic{{Name: "t", PartitionCount: 3}},
		Members: []*assigndv1.Member{
			{MemberId: "a", Topics: []string{"t"}, OwnedPartitions: []*assigndv1.TopicPartitions{{Topic: "t", Partitions: []int32{0, 2}}}, Generation: proto.Int32(1)},
			{MemberId: "b", Metadata: wire.AppendSubscription(nil, &wire.Subscription{Version: 1, Topics: []string{"t"}})},
		}})
	f.Add(explicit)
	tp := concat(text(1, "t"), varint(2, 3), varint(2, 1), varint(2, 1<<40), bytesField(2, []byte{7, 0x80, 1}),
		protowire.AppendFixed32(protowire.AppendTag(nil, 9, protowire.Fixed32Type), 5))
	member := concat(text(1, "m"), bytesField(5, tp), text(4, "t"), varint(4, 1))
	f.Add(concat(text(3, "range"), bytesField(5, member), protowire.AppendFixed64(protowire.AppendTag(nil, 5, protowire.Fixed64Type), 1)))
	f.Add(bytesField(5, bytesField(4, []byte{0xff})))
	f.Fuzz(func(t *testing.T, b []byte) { checkUnmarshal(t, b) })
}

// TestUnmarshalLongLists: lists longer than the shared arrays' chunks,
// packed and one varint at a time, across many members.
func TestUnmarshalLongLists(t *testing.T) {
	long := make([]int32, 100_000)
	topics := make([]string, 20_000)
	for i := range long {
		long[i] = int32(i)
	}
	for i := range topics {
		topics[i] = string(rune('a' + i%26))
	}
	req := &assigndv1.AssignRequest{ProtocolName: "range"}
	for i := range 10 {
		m := &assigndv1.Member{MemberId: string(rune('A' + i)), Topics: topics[:i*2000]}
		for j := range 500 {
			m.OwnedPartitions = append(m.OwnedPartitions, &assigndv1.TopicPartitions{Topic: topics[j], Partitions: long[j : j+10]})
		}
		m.OwnedPartitions[i].Partitions = long[:70_000]
		req.Members = append(req.Members, m)
	}
	b, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	checkUnmarshal(t, b)
	// The same partitions, a varint each.
	tp := text(1, "t")
	for _, p := range long {
		tp = append(tp, varint(2, uint64(p))...)
	}
	one := bytesField(5, bytesField(5, tp))
	checkUnmarshal(t, append(b, bytes.Repeat(one, 3)...))
}

// Wire fields, for the seeds.
func bytesField(num protowire.Number, v []byte) []byte {
	return protowire.AppendBytes(protowire.AppendTag(nil, num, protowire.BytesType), v)
}

func text(num protowire.Number, s string) []byte { return bytesField(num, []byte(s)) }

func varint(num protowire.Number, v uint64) []byte {
	return protowire.AppendVarint(protowire.AppendTag(nil, num, protowire.VarintType), v)
}

func concat(fields ...[]byte) []byte { return bytes.Join(fields, nil) }
