package assign_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
)

// BenchmarkCooperativeSticky compares assignd's cooperative-sticky with
// franz-go's, the peer, on the scenarios, in the same run:
//
//	engine: the assignment alone, input already decoded;
//	leader: what a group leader does: decode every member's JoinGroup
//	        metadata, assign, encode every member's SyncGroup assignment.
//
// Each reports imbalance (max−min partitions per member this round), moved
// (partitions live members lose this round) and topicspread (over topics,
// the largest max−min of a topic's partitions per subscriber) beside time
// and memory. engine/assignd@2 is cooperative-sticky@2 (per-topic balance).
// Run: go test ./assign -run '^$' -bench CooperativeSticky -benchtime 5x
// (S and U take -benchtime 2000x; A, B, B2 and E take seconds per peer op).
func BenchmarkCooperativeSticky(b *testing.B) {
	for _, name := range scenarioOrder {
		s := benchScenario(name)
		b.Run(name+"/engine/assignd", func(b *testing.B) {
			b.ReportAllocs()
			var r *assign.Result
			for b.Loop() {
				r = mustRun(s.group)
			}
			reportQuality(b, s, assigndEncode(r))
		})
		b.Run(name+"/engine/assignd@2", func(b *testing.B) {
			b.ReportAllocs()
			var r *assign.Result
			for b.Loop() {
				var err error
				if r, err = assign.Run(assign.CooperativeStickyPerTopic(), s.group); err != nil {
					b.Fatal(err)
				}
			}
			reportQuality(b, s, assigndEncode(r))
		})
		b.Run(name+"/engine/franz-go", func(b *testing.B) {
			b.ReportAllocs()
			mb := peerMemberBalancer(b, s)
			var into kgo.IntoSyncAssignment
			for b.Loop() {
				var err error
				if into, err = mb.BalanceOrError(s.topics); err != nil {
					b.Fatal(err)
				}
			}
			reportQuality(b, s, peerEncode(into))
		})
		b.Run(name+"/leader/assignd", func(b *testing.B) {
			b.ReportAllocs()
			var out map[string][]byte
			for b.Loop() {
				out = assigndLeader(b, s)
			}
			reportQuality(b, s, out)
		})
		b.Run(name+"/leader/franz-go", func(b *testing.B) {
			b.ReportAllocs()
			var out map[string][]byte
			for b.Loop() {
				mb := peerMemberBalancer(b, s)
				into, err := mb.BalanceOrError(s.topics)
				if err != nil {
					b.Fatal(err)
				}
				out = peerEncode(into)
			}
			reportQuality(b, s, out)
		})
	}
}

// assigndLeader is the leader path through assignd's engine.
func assigndLeader(b *testing.B, s *scenario) map[string][]byte {
	var d wire.Decoder
	g := assign.Group{Generation: s.group.Generation, Protocol: s.group.Protocol, Topics: s.group.Topics,
		Members: make([]assign.Member, len(s.metadata))}
	for i, md := range s.metadata {
		sub, err := d.Subscription(md)
		if err != nil {
			b.Fatal(err)
		}
		g.Members[i] = assign.Member{ID: s.group.Members[i].ID, Topics: sub.Topics, Owned: sub.Owned,
			UserData: sub.UserData, Generation: sub.Generation, Rack: sub.Rack}
	}
	r, err := assign.Run(assign.CooperativeSticky(), &g)
	if err != nil {
		b.Fatal(err)
	}
	return assigndEncode(r)
}

func assigndEncode(r *assign.Result) map[string][]byte {
	out := make(map[string][]byte, len(r.Members))
	for _, m := range r.Members {
		out[m.ID] = wire.AppendAssignment(nil, 3, m.Assigned, m.UserData)
	}
	return out
}

func peerMemberBalancer(b *testing.B, s *scenario) kgo.GroupMemberBalancerOrError {
	members := make([]kmsg.JoinGroupResponseMember, len(s.metadata))
	for i, md := range s.metadata {
		members[i] = kmsg.JoinGroupResponseMember{MemberID: s.group.Members[i].ID, ProtocolMetadata: md}
	}
	mb, _, err := kgo.CooperativeStickyBalancer().MemberBalancer(members)
	if err != nil {
		b.Fatal(err)
	}
	return mb.(kgo.GroupMemberBalancerOrError)
}

func peerEncode(into kgo.IntoSyncAssignment) map[string][]byte {
	sync := into.IntoSyncAssignment()
	out := make(map[string][]byte, len(sync))
	for _, a := range sync {
		out[a.MemberID] = a.MemberAssignment
	}
	return out
}

type topicPartition struct {
	topic     string
	partition int32
}

// reportQuality decodes the SyncGroup assignments and reports imbalance and
// moved partitions.
func reportQuality(b *testing.B, s *scenario, out map[string][]byte) {
	b.Helper()
	lo, hi, moved := -1, 0, 0
	perTopic := make(map[string]map[string]int)
	for _, m := range s.group.Members {
		for _, t := range m.Topics {
			if perTopic[t] == nil {
				perTopic[t] = make(map[string]int)
			}
			perTopic[t][m.ID] += 0
		}
	}
	for _, m := range s.group.Members {
		a, err := wire.DecodeAssignment(out[m.ID])
		if err != nil && len(out[m.ID]) > 0 {
			b.Fatalf("member %s: %v", m.ID, err)
		}
		n := 0
		have := make(map[topicPartition]bool)
		for _, tp := range a.Partitions {
			n += len(tp.Partitions)
			perTopic[tp.Topic][m.ID] += len(tp.Partitions)
			for _, p := range tp.Partitions {
				have[topicPartition{tp.Topic, p}] = true
			}
		}
		for _, tp := range m.Owned {
			for _, p := range tp.Partitions {
				if !have[topicPartition{tp.Topic, p}] {
					moved++
				}
			}
		}
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	spread := 0
	for _, counts := range perTopic {
		tlo, thi := -1, 0
		for _, c := range counts {
			if tlo < 0 || c < tlo {
				tlo = c
			}
			thi = max(thi, c)
		}
		spread = max(spread, thi-tlo)
	}
	b.ReportMetric(float64(hi-lo), "imbalance")
	b.ReportMetric(float64(moved), "moved")
	b.ReportMetric(float64(spread), "topicspread")
}
