package server

import (
	"bytes"
	"math"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// TestOSReturnerDebounced: calls ending close together push the return
// back; after the last, memory is returned memoryReturns times, then no
// more.
func TestOSReturnerDebounced(t *testing.T) {
	var frees atomic.Int32
	r := &osReturner{delay: 200 * time.Millisecond, free: func() { frees.Add(1) }}
	defer r.stop()
	for range 5 {
		r.begin()
		r.end()
		time.Sleep(2 * time.Millisecond)
	}
	for deadline := time.Now().Add(5 * time.Second); frees.Load() < memoryReturns && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(400 * time.Millisecond) // time for more returns, were they wrongly repeated
	if got := frees.Load(); got != memoryReturns {
		t.Errorf("memory returned %d times after a burst, want %d", got, memoryReturns)
	}
}

// TestOSReturnerHeldOffByLargeCall: no return runs while a large call
// computes, even one whose timer fires then; the returns follow its end.
func TestOSReturnerHeldOffByLargeCall(t *testing.T) {
	var frees atomic.Int32
	r := &osReturner{delay: 50 * time.Millisecond, free: func() { frees.Add(1) }}
	defer r.stop()
	r.begin()
	r.end()   // returns pending
	r.begin() // the next large call, before they run
	r.fire()  // as a timer that fired just before begin would
	if got := frees.Load(); got != 0 {
		t.Fatalf("memory returned %d times during a large call", got)
	}
	r.begin() // two at once: the first to end does not arm
	r.end()
	r.fire()
	if got := frees.Load(); got != 0 {
		t.Fatalf("memory returned %d times while a large call still computes", got)
	}
	r.end()
	for deadline := time.Now().Add(5 * time.Second); frees.Load() < memoryReturns && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if got := frees.Load(); got != memoryReturns {
		t.Errorf("memory returned %d times after the last large call, want %d", got, memoryReturns)
	}
}

// TestDefaultMemoryBudget: three quarters of the Go memory limit less
// what is reserved (never below MinMemoryBudget), or 2 GiB without one.
func TestDefaultMemoryBudget(t *testing.T) {
	prev := debug.SetMemoryLimit(1 << 30)
	defer debug.SetMemoryLimit(prev)
	if got := DefaultMemoryBudget(0); got != 768<<20 {
		t.Errorf("with a 1 GiB limit: %d, want 768 MiB", got)
	}
	if got := DefaultMemoryBudget(512 << 20); got != 384<<20 {
		t.Errorf("with a 1 GiB limit and 512 MiB reserved: %d, want 384 MiB", got)
	}
	if got := DefaultMemoryBudget(2 << 30); got != MinMemoryBudget {
		t.Errorf("with more reserved than the limit: %d, want MinMemoryBudget", got)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if got := DefaultMemoryBudget(0); got != 2<<30 {
		t.Errorf("without a limit: %d, want 2 GiB", got)
	}
}

// TestCodecLargeRequest: decoding a request over largeRequestBytes
// counts as a large call (its end arms the returns); a small one does not.
func TestCodecLargeRequest(t *testing.T) {
	var frees atomic.Int32
	r := &osReturner{delay: 10 * time.Millisecond, free: func() { frees.Add(1) }}
	defer r.stop()
	c := serverCodec{encoding.GetCodecV2(grpcproto.Name), r, nil}
	for _, size := range []int{100, largeRequestBytes + 1} {
		big := &assigndv1.AssignRequest{GroupId: "g", WeightUnit: string(make([]byte, size))}
		data, err := c.Marshal(big)
		if err != nil {
			t.Fatal(err)
		}
		var got assigndv1.AssignRequest
		if err := c.Unmarshal(data, &got); err != nil || len(got.GetWeightUnit()) != size {
			t.Fatalf("%d bytes: decoded %d, %v", size, len(got.GetWeightUnit()), err)
		}
		want := int32(0)
		if size > largeRequestBytes {
			want = memoryReturns
		}
		for deadline := time.Now().Add(5 * time.Second); frees.Load() < want && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond) // time for returns, were they wrongly armed
		if n := frees.Load(); n != want {
			t.Errorf("after decoding %d bytes: %d returns, want %d", size, n, want)
		}
	}
}

// TestCodecKeepsCanonicalLargeInput: with receivedInputs, the codec keeps
// the bytes of a large request that are its deterministic marshaling,
// and nothing for a small one or for bytes protobuf would not write (the
// same request with its group id last).
func TestCodecKeepsCanonicalLargeInput(t *testing.T) {
	received := new(receivedInputs)
	c := serverCodec{encoding.GetCodecV2(grpcproto.Name), nil, received}
	large := &assigndv1.AssignRequest{GroupId: "g", WeightUnit: string(make([]byte, keptInputBytes))}
	canonical, err := proto.MarshalOptions{Deterministic: true}.Marshal(large)
	if err != nil {
		t.Fatal(err)
	}
	groupLast := append(protowire.AppendString(protowire.AppendTag(nil, 31, protowire.BytesType), large.GetWeightUnit()),
		protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "g")...)
	small, _ := proto.Marshal(&assigndv1.AssignRequest{GroupId: "g"})
	for _, tc := range []struct {
		name string
		b    []byte
		kept bool
	}{{"large", canonical, true}, {"large, group id last", groupLast, false}, {"small", small, false}} {
		var got assigndv1.AssignRequest
		if err := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(tc.b)}, &got); err != nil || got.GetGroupId() != "g" {
			t.Fatalf("%s: decoded group %q, %v", tc.name, got.GetGroupId(), err)
		}
		var in []byte
		if buf := received.take(&got); buf != nil {
			in = buf.ReadOnlyData()
		}
		if kept := in != nil; kept != tc.kept || (kept && !bytes.Equal(in, tc.b)) {
			t.Errorf("%s: kept %d bytes; want kept %t, the bytes received", tc.name, len(in), tc.kept)
		}
		if again := received.take(&got); again != nil {
			t.Errorf("%s: taken twice", tc.name)
		}
	}
}
