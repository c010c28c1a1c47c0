package history

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// fill sets every field of m, recursively: strings of n bytes, lists of
// k entries, so that a field decisionSize does not count shows as heap it
// misses.
func fill(m protoreflect.Message, n, k int) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range k {
				if fd.Kind() == protoreflect.MessageKind {
					e := l.NewElement()
					fill(e.Message(), n, k)
					l.Append(e)
				} else {
					l.Append(scalar(fd, n))
				}
			}
		case fd.IsMap():
			// Decision has no maps; a new one would fail the size test.
		case fd.Kind() == protoreflect.MessageKind:
			fill(m.Mutable(fd).Message(), n, k)
		default:
			m.Set(fd, scalar(fd, n))
		}
	}
}

func scalar(fd protoreflect.FieldDescriptor, n int) protoreflect.Value {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(strings.Repeat("x", n))
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(make([]byte, n))
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(1)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(1.5)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(7)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(7)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(7)
	}
	return protoreflect.ValueOfInt32(7)
}

// heapOfCopies is the heap one copy of d takes, measured: copies
// decoded from its bytes, as a record read from the shared log is, each
// string and list allocated anew.
func heapOfCopies(t *testing.T, d *assigndv1.Decision) (measured float64, copy *assigndv1.Decision) {
	const copies = 2000
	b, err := proto.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	kept := make([]*assigndv1.Decision, copies)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range kept {
		kept[i] = new(assigndv1.Decision)
		if err := proto.Unmarshal(b, kept[i]); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	measured = (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / copies
	runtime.KeepAlive(kept)
	return measured, kept[0]
}

// TestDecisionSizeMatchesHeap: what the byte bound counts for a decision
// is the heap it takes, within a margin, for decisions of every shape,
// including one with every field set (so that a field added to Decision
// and not counted fails here).
func TestDecisionSizeMatchesHeap(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes the size of allocations; the count is for a normal build")
	}
	every := func(n, k int) *assigndv1.Decision {
		d := new(assigndv1.Decision)
		fill(d.ProtoReflect(), n, k)
		return d
	}
	large := fullDecision("orders-eu-west", 7)
	for i := range 22 {
		large.Members = append(large.Members, &assigndv1.DecisionMember{MemberId: fmt.Sprintf("consumer-%d-0b5e9a1c-4d2f-4f7a-9a47-7c1d3e2f1a%02d", i, i), Owned: 40, Assigned: 41, AssignedByTopic: make([]int32, 32)})
	}
	for i := range 32 {
		large.Moves = append(large.Moves, &assigndv1.PartitionMove{Topic: "payments", Partition: int32(i), FromMemberId: large.Members[i%10].MemberId, ToMemberId: large.Members[10+i%20].MemberId})
	}
	streams := &assigndv1.Decision{GroupId: "payments-streams", GroupType: assigndv1.GroupType_GROUP_TYPE_STREAMS, Assignor: "sticky@1", Tasks: 64, Processes: 8}
	for i := range 32 {
		id := fmt.Sprintf("a3f1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c%02d-StreamThread-%d", i%8, i%4)
		streams.Members = append(streams.Members, &assigndv1.DecisionMember{MemberId: id, ProcessId: id[:36], Owned: 2, Assigned: 2, StandbyTasks: 2})
		streams.TaskMoves = append(streams.TaskMoves, &assigndv1.TaskMove{Task: &assigndv1.StreamsTask{SubtopologyId: "1", Partition: int32(i)},
			Kind: assigndv1.TaskReplicaKind_TASK_REPLICA_KIND_STANDBY, FromMemberId: id, ToMemberId: streams.Members[i/2].MemberId})
	}
	for _, tt := range []struct {
		name string
		d    *assigndv1.Decision
	}{
		{"empty", new(assigndv1.Decision)},
		{"streams, 32 members and task moves", streams},
		{"10 members", fullDecision("orders-eu-west", 3)},
		{"32 members and moves", large},
		{"every field, short strings", every(8, 2)},
		{"every field, long lists", every(40, 32)},
		{"every field, long strings", every(600, 3)},
	} {
		measured, d := heapOfCopies(t, tt.d)
		est := float64(decisionSize(d))
		t.Logf("%s: counted %.0f B, heap %.0f B (%.2f×)", tt.name, est, measured, est/measured)
		// Never much below the heap (the bound would be exceeded), never
		// far above it (the Store would forget groups for nothing).
		if est < 0.95*measured || est > 1.3*measured+64 {
			t.Errorf("%s: decisionSize counts %.0f bytes, the heap holds %.0f", tt.name, est, measured)
		}
	}
}

// TestStoreKeepsItsByteBound: a Store whose bound is smaller than what
// its groups would take forgets the least recently seen groups, keeps
// what it counts within the bound, and its count is the heap it holds.
func TestStoreKeepsItsByteBound(t *testing.T) {
	const bound = 4 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, err := New(WithMaxBytes(bound), WithInputs(DefaultInputsPerGroup, bound/4))
	if err != nil {
		t.Fatal(err)
	}
	const groups = 2000 // 8 decisions of about 2.4 KB each: 40 MB unbounded
	for gen := range int32(DefaultDecisionsPerGroup) {
		for g := range groups {
			id := fmt.Sprintf("group-%05d", g)
			s.RecordInput(fullDecision(id, gen+1), fullInput(id, gen+1))
			if b := s.Bytes(); b > bound {
				t.Fatalf("after %s generation %d the Store counts %d bytes, over its bound of %d", id, gen+1, b, bound)
			}
		}
	}
	if _, _, ok := s.Get(fmt.Sprintf("group-%05d", groups-1), 1); !ok {
		t.Error("the group recorded last was forgotten")
	}
	if _, _, ok := s.Get("group-00000", 1); ok {
		t.Error("the least recently seen group is still kept over the bound")
	}
	n := s.Len()
	if n == 0 || n == groups {
		t.Fatalf("%d groups kept of %d: the bound did not apply", n, groups)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	counted := float64(s.Bytes())
	t.Logf("%d groups kept; counted %.2f MiB, heap %.2f MiB", n, counted/(1<<20), held/(1<<20))
	if held > 1.1*counted+(1<<20) {
		t.Errorf("the Store holds %.0f bytes of heap and counts %.0f", held, counted)
	}
	runtime.KeepAlive(s)
}
