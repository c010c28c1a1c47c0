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
// appended to without touching one another. request.UnmarshalCanonical
// gives the same, and says b is canonical only when it is the request's
// deterministic marshaling; it returns whether it said so.
func checkUnmarshal(t interface {
	Helper()
	Fatalf(string, ...any)
}, b []byte) bool {
	t.Helper()
	want, got, checked := &assigndv1.AssignRequest{}, &assigndv1.AssignRequest{}, &assigndv1.AssignRequest{}
	wantErr, gotErr := proto.Unmarshal(b, want), request.Unmarshal(b, got)
	canonical, checkedErr := request.UnmarshalCanonical(b, checked)
	if (wantErr == nil) != (gotErr == nil) || (wantErr == nil) != (checkedErr == nil) {
		t.Fatalf("proto.Unmarshal: %v; request.Unmarshal: %v; request.UnmarshalCanonical: %v", wantErr, gotErr, checkedErr)
	}
	if wantErr != nil {
		if canonical {
			t.Fatalf("UnmarshalCanonical failed (%v) and said canonical", checkedErr)
		}
		return false
	}
	if !proto.Equal(want, got) {
		t.Fatalf("request.Unmarshal gave\n%v\nproto.Unmarshal\n%v", got, want)
	}
	if !proto.Equal(want, checked) {
		t.Fatalf("request.UnmarshalCanonical gave\n%v\nproto.Unmarshal\n%v", checked, want)
	}
	if canonical {
		again, err := proto.MarshalOptions{Deterministic: true}.Marshal(checked)
		if err != nil || !bytes.Equal(again, b) {
			t.Fatalf("UnmarshalCanonical said canonical, but marshaling again gives other bytes (%v):\n%x\n%x", err, again, b)
		}
	}
	for _, m := range got.GetMembers() {
		for _, tp := range m.GetOwnedPartitions() {
			if ps := tp.GetPartitions(); cap(ps) != len(ps) {
				t.Fatalf("member %q, topic %q: partitions of capacity %d for %d, so an append would write a neighbour's", m.GetMemberId(), tp.GetTopic(), cap(ps), len(ps))
			}
		}
	}
	return canonical
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
		if !checkUnmarshal(rt, b) {
			rt.Fatalf("protobuf's own marshaling was not found canonical")
		}
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
	if !checkUnmarshal(t, b) {
		t.Fatal("protobuf's own marshaling was not found canonical")
	}
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

// TestUnmarshalCanonicalRejects: encodings protobuf accepts but does not
// write are not found canonical, each on a request that is canonical
// without it. checkUnmarshal checks the answer against marshaling again;
// here each must be false, since none is protobuf's own.
func TestUnmarshalCanonicalRejects(t *testing.T) {
	tp := concat(text(1, "t"), bytesField(2, []byte{0, 2}))
	member := func(fields ...[]byte) []byte { return bytesField(5, concat(fields...)) }
	base := concat(text(3, "range"), member(text(1, "m"), text(4, "t"), bytesField(5, tp)), text(7, "m"))
	if !checkUnmarshal(t, base) {
		t.Fatal("the base request was not found canonical")
	}
	long := func(num protowire.Number, v []byte) []byte { // its length in two bytes
		b := protowire.AppendTag(nil, num, protowire.BytesType)
		return append(append(b, byte(len(v))|0x80, 0), v...)
	}
	for name, b := range map[string][]byte{
		"unpacked partitions":      concat(text(3, "range"), member(text(1, "m"), bytesField(5, concat(text(1, "t"), varint(2, 0), varint(2, 2)))), text(7, "m")),
		"partitions packed twice":  concat(text(3, "range"), member(text(1, "m"), bytesField(5, concat(text(1, "t"), bytesField(2, []byte{0}), bytesField(2, []byte{2}))))),
		"partitions before topic":  concat(text(3, "range"), member(text(1, "m"), bytesField(5, concat(bytesField(2, []byte{0, 2}), text(1, "t"))))),
		"topic twice":              concat(text(3, "range"), member(text(1, "m"), bytesField(5, concat(text(1, "u"), tp)))),
		"empty topic written":      concat(text(3, "range"), member(text(1, "m"), bytesField(5, concat(text(1, ""), bytesField(2, []byte{0}))))),
		"empty partitions written": concat(text(3, "range"), member(text(1, "m"), bytesField(5, concat(text(1, "t"), bytesField(2, nil))))),
		"a long partition varint":  concat(text(3, "range"), member(text(1, "m"), bytesField(5, concat(text(1, "t"), bytesField(2, []byte{0x80, 0}))))),
		"an int32 not sign-extended": concat(text(3, "range"), member(text(1, "m"), bytesField(5, concat(text(1, "t"),
			bytesField(2, protowire.AppendVarint(nil, uint64(uint32(1<<31)))))))),
		"unknown field in a list":     concat(text(3, "range"), member(text(1, "m"), bytesField(5, concat(tp, varint(9, 1))))),
		"a long owned list length":    concat(text(3, "range"), member(text(1, "m"), long(5, tp)), text(7, "m")),
		"a long topic length":         concat(text(3, "range"), member(text(1, "m"), long(4, []byte("t")), bytesField(5, tp))),
		"a long member length":        concat(text(3, "range"), long(5, concat(text(1, "m"), text(4, "t"))), text(7, "m")),
		"owned before topics":         concat(text(3, "range"), member(text(1, "m"), bytesField(5, tp), text(4, "t"))),
		"member id after the lists":   concat(text(3, "range"), member(text(4, "t"), bytesField(5, tp), text(1, "m"))),
		"user data between the lists": concat(text(3, "range"), member(text(1, "m"), text(4, "t"), text(6, "u"), bytesField(5, tp))),
		"rack before the lists":       concat(text(3, "range"), member(text(1, "m"), text(8, "r"), text(4, "t"))),
		"topics as varints":           concat(text(3, "range"), member(text(1, "m"), varint(4, 1))),
		"leader before members":       concat(text(3, "range"), text(7, "m"), member(text(1, "m"))),
		"members split":               concat(text(3, "range"), member(text(1, "m")), text(6, ""), member(text(1, "n"))),
		"group id after members":      concat(member(text(1, "m")), text(1, "g")),
		"members merged":              concat(base, base),
		"unknown field among members": concat(text(3, "range"), member(text(1, "m")), varint(99, 1), member(text(1, "n"))),
		"a scalar written as zero":    concat(text(3, "range"), member(text(1, "m"), varint(7, 0)), varint(2, 0)),
		// Unknown fields, written last by protobuf, before the lists.
		"rebalance protocol as bytes before members": concat(text(4, "x"), member(text(1, "m"))),
		"member id as a varint before the lists":     concat(text(3, "range"), member(varint(1, 5), text(4, "t"))),
	} {
		if checkUnmarshal(t, b) {
			t.Errorf("%s: found canonical", name)
		}
	}
}
