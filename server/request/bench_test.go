package request_test

import (
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/request"
)

// millionRequest is the engine issue's case B as an explicit-form leader
// sends it: 500 topics × 2,000 partitions, 2,000 members subscribed to
// all, each owning one partition of every topic.
func millionRequest(b *testing.B) []byte {
	b.Helper()
	req := &assigndv1.AssignRequest{GroupId: "g", GenerationId: 2, ProtocolName: "cooperative-sticky"}
	topics := make([]string, 500)
	for i := range topics {
		topics[i] = fmt.Sprintf("topic-%03d", i)
		req.Topics = append(req.Topics, &assigndv1.Topic{Name: topics[i], PartitionCount: 2000})
	}
	for m := range 2000 {
		pm := &assigndv1.Member{MemberId: fmt.Sprintf("consumer-%04d", m), Topics: topics, Generation: proto.Int32(1)}
		for _, t := range topics {
			pm.OwnedPartitions = append(pm.OwnedPartitions, &assigndv1.TopicPartitions{Topic: t, Partitions: []int32{int32(m)}})
		}
		req.Members = append(req.Members, pm)
	}
	out, err := proto.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkUnmarshalMillion decodes millionRequest as the server does
// without a history (Unmarshal) and with one (UnmarshalCanonical).
func BenchmarkUnmarshalMillion(b *testing.B) {
	data := millionRequest(b)
	b.Run("plain", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var req assigndv1.AssignRequest
			if err := request.Unmarshal(data, &req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("canonical", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			var req assigndv1.AssignRequest
			if ok, err := request.UnmarshalCanonical(data, &req); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
}
