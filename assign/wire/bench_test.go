package wire_test

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign/wire"
)

// Benchmarks of the leader path's codec work, each beside franz-go's kmsg
// doing the same job:
//
//	go test ./assign/wire -run '^$' -bench . -benchmem

// BenchmarkDecodeSubscription decodes one member of the 500-topic group:
// 500 topics, 500 owned entries of one partition each.
func BenchmarkDecodeSubscription(b *testing.B) {
	s := bigSubscription(500, 1, 7)
	in := wire.AppendSubscription(nil, &s)
	b.Run("assignd/Decoder", func(b *testing.B) {
		var d wire.Decoder
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := d.Subscription(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("assignd/no-interning", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := wire.DecodeSubscription(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kmsg", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			var m kmsg.ConsumerMemberMetadata
			if err := m.ReadFrom(in); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDecodeGroup decodes every subscription of scenario A's group as
// the leader receives them (2,000 members, 500 topics, 500 owned
// partitions each), with a fresh Decoder per rebalance.
func BenchmarkDecodeGroup(b *testing.B) {
	const members = 2000
	ins := make([][]byte, members)
	total := 0
	for i := range ins {
		s := bigSubscription(500, 1, i)
		ins[i] = wire.AppendSubscription(nil, &s)
		total += len(ins[i])
	}
	b.Run("assignd", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		for b.Loop() {
			var d wire.Decoder
			for _, in := range ins {
				if _, err := d.Subscription(in); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("kmsg", func(b *testing.B) {
		b.SetBytes(int64(total))
		b.ReportAllocs()
		for b.Loop() {
			for _, in := range ins {
				var m kmsg.ConsumerMemberMetadata
				if err := m.ReadFrom(in); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkEncodeAssignment encodes one member's 500-partition assignment,
// spread over 500 topics (scenario A) or all in one topic.
func BenchmarkEncodeAssignment(b *testing.B) {
	for _, shape := range []struct {
		name             string
		topics, perTopic int
	}{
		{"500topics-x1", 500, 1},
		{"1topic-x500", 1, 500},
	} {
		parts := bigSubscription(shape.topics, shape.perTopic, 3).Owned
		size := int64(wire.AssignmentSize(parts, nil))
		b.Run(shape.name+"/assignd", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				_ = wire.AppendAssignment(nil, 3, parts, nil)
			}
		})
		b.Run(shape.name+"/assignd-reused-buffer", func(b *testing.B) {
			buf := make([]byte, 0, size)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				buf = wire.AppendAssignment(buf[:0], 3, parts, nil)
			}
		})
		b.Run(shape.name+"/kmsg", func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				// A leader holding a plan builds kmsg's struct, then
				// encodes it, as kgo's IntoSyncAssignment does.
				m := kmsg.ConsumerMemberAssignment{Version: 3, Topics: make([]kmsg.ConsumerMemberAssignmentTopic, len(parts))}
				for i, tp := range parts {
					m.Topics[i] = kmsg.ConsumerMemberAssignmentTopic{Topic: tp.Topic, Partitions: tp.Partitions}
				}
				_ = m.AppendTo(nil)
			}
		})
	}
}
