package server

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/request"
)

// serverCodec is gRPC's proto codec, but for two things. It decodes an
// AssignRequest with [request.Unmarshal], which gives what proto.Unmarshal
// gives without a heap object per owned-partitions message and topic name
// (in a 1,000,000-partition group in the explicit form, decoding was a
// third of the call, and collecting its objects a good part of the rest).
// And while it decodes a request over largeRequestBytes, the memory
// returns (returns, nil when there are none) wait, as for an admitted
// large call. With received (nil: none), a large request's bytes, when
// they are its deterministic marshaling, are kept there for its
// Decision's input.
type serverCodec struct {
	encoding.CodecV2
	returns  *osReturner
	received *receivedInputs
}

func (c serverCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if c.returns != nil && data.Len() > largeRequestBytes {
		c.returns.begin()
		defer c.returns.end()
	}
	req, ok := v.(*assigndv1.AssignRequest)
	if !ok {
		return c.CodecV2.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	b := buf.ReadOnlyData()
	if c.received == nil || len(b) < keptInputBytes {
		defer buf.Free()
		return request.Unmarshal(b, req)
	}
	canonical, err := request.UnmarshalCanonical(b, req)
	if err != nil || !canonical {
		buf.Free()
		return err
	}
	// Freed once the Decision has copied b out.
	c.received.put(req, buf)
	return nil
}
