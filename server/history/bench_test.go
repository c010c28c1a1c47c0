package history

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// fullDecision is a decision of a 10-member group over 2 topics, as the
// server records it.
func fullDecision(group string, gen int32) *assigndv1.Decision {
	d := decision(group, call{at: time.Duration(gen) * time.Second, gen: gen})
	d.LeaderId = "consumer-1-0b5e9a1c-4d2f-4f7a-9a47-7c1d3e2f1a00"
	d.PolicyRevision = "3f2a9c1b7d4e"
	d.MemberCount, d.Partitions, d.Moved, d.Revoked = 10, 60, 3, 3
	d.EngineTime, d.CallTime = durationpb.New(40*time.Microsecond), durationpb.New(90*time.Microsecond)
	d.UserAgent = "assignd-go/0.1.0 grpc-go/1.72.0"
	d.InputDigest = make([]byte, 32)
	d.RevokedPartitions = []*assigndv1.TopicPartitions{{Topic: "orders", Partitions: []int32{4, 9, 17}}}
	for i := range 10 {
		d.Members = append(d.Members, &assigndv1.DecisionMember{
			MemberId: fmt.Sprintf("consumer-%d-0b5e9a1c-4d2f-4f7a-9a47-7c1d3e2f1a%02d", i, i), Rack: "eu-west-1a", Owned: 6, Assigned: 6,
		})
	}
	return d
}

// fullInput is the request of a 10-member group over 2 topics of 30
// partitions, each member owning its 6: what the Go client sends.
func fullInput(group string, gen int32) []byte {
	req := &assigndv1.AssignRequest{GroupId: group, GenerationId: gen, ProtocolName: "cooperative-sticky", LeaderId: "consumer-0-0b5e9a1c-4d2f-4f7a-9a47-7c1d3e2f1a00",
		Topics: []*assigndv1.Topic{{Name: "orders", PartitionCount: 30}, {Name: "payments", PartitionCount: 30}}}
	for i := range 10 {
		m := &assigndv1.Member{MemberId: fmt.Sprintf("consumer-%d-0b5e9a1c-4d2f-4f7a-9a47-7c1d3e2f1a%02d", i, i), Topics: []string{"orders", "payments"}}
		for _, t := range req.Topics {
			m.OwnedPartitions = append(m.OwnedPartitions, &assigndv1.TopicPartitions{Topic: t.Name, Partitions: []int32{int32(3 * i), int32(3*i + 1), int32(3*i + 2)}})
		}
		req.Members = append(req.Members, m)
	}
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	return b
}

// BenchmarkStoreMemory fills a Store at its default bounds (10,000 groups,
// DefaultDecisionsPerGroup decisions each) and reports the heap it holds,
// per group and in all: decisions only, and with every decision's input
// (DefaultInputsPerGroup per group, within DefaultInputBytes).
// Run: go test ./server/history -run X -bench StoreMemory -benchtime 1x
func BenchmarkStoreMemory(b *testing.B) {
	for _, withInputs := range []bool{false, true} {
		name := "decisions"
		if withInputs {
			name = "decisions+inputs"
		}
		b.Run(name, func(b *testing.B) {
			for range b.N {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				s, _ := New()
				for gen := range int32(DefaultDecisionsPerGroup) {
					for g := range DefaultMaxGroups {
						id := fmt.Sprintf("group-%05d", g)
						var in []byte
						if withInputs {
							in = fullInput(id, gen+1)
						}
						s.RecordInput(fullDecision(id, gen+1), in)
					}
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				if s.Len() != DefaultMaxGroups {
					b.Fatalf("%d groups", s.Len())
				}
				held := float64(after.HeapAlloc) - float64(before.HeapAlloc)
				b.ReportMetric(held/(1<<20), "MiB")
				b.ReportMetric(held/DefaultMaxGroups, "B/group")
				b.ReportMetric(float64(s.InputBytes())/(1<<20), "input-MiB")
				b.ReportMetric(float64(s.Bytes())/(1<<20), "counted-MiB")
				runtime.KeepAlive(s)
			}
		})
	}
}

// BenchmarkRecord is the cost of Record on the Assign path, at the bound
// (every call evicts a group).
func BenchmarkRecord(b *testing.B) {
	s, _ := New(WithMaxGroups(1000))
	ds := make([]*assigndv1.Decision, 4096)
	for i := range ds {
		ds[i] = fullDecision(fmt.Sprintf("group-%05d", i), 1)
	}
	b.ResetTimer()
	for i := range b.N {
		s.Record(ds[i%len(ds)])
	}
}
