package server

import (
	"runtime"
	"sync"
	"weak"

	"google.golang.org/grpc/mem"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// keptInputBytes is the least a request takes for its received bytes to
// be kept as its history input (see [receivedInputs]); below it,
// marshaling the request again costs less than keeping them.
const keptInputBytes = largeRequestBytes

// receivedInputs holds, by request, the bytes a large request was
// decoded from when they are its deterministic marshaling
// ([request.UnmarshalCanonical]): its Decision's input and digest are
// then those bytes, not a marshaling of a 28 MB request again, which,
// after the response of a million-partition call, took as much CPU as
// decoding it and competed with the next call for the cores.
//
// The bytes stay in gRPC's buffer until the Decision is built, after the
// response: it copies them out (the buffer may be larger than the
// request, and goes back to gRPC's pool) and frees the buffer.
//
// A call that would wait for admission frees them at once
// ([admission.wouldWait]): a decoded request in line is memory no
// admitted estimate counts, and its bytes would add a fifth to it.
//
// An entry goes when its call takes it, or when its request is
// collected (a call refused after decoding never takes it, and its buffer
// goes to the collector instead of the pool): it never holds the bytes
// longer than the request is alive.
type receivedInputs struct{ m sync.Map } // weak.Pointer[assigndv1.AssignRequest] to mem.Buffer

// put keeps buf, whose bytes req was decoded from, as req's input.
func (r *receivedInputs) put(req *assigndv1.AssignRequest, buf mem.Buffer) {
	key := weak.Make(req)
	r.m.Store(key, buf)
	runtime.AddCleanup(req, func(key weak.Pointer[assigndv1.AssignRequest]) { r.m.Delete(key) }, key)
}

// take is the buffer of req's input as received, or nil, and forgets it;
// the caller frees it.
func (r *receivedInputs) take(req *assigndv1.AssignRequest) mem.Buffer {
	if r == nil {
		return nil
	}
	v, _ := r.m.LoadAndDelete(weak.Make(req))
	buf, _ := v.(mem.Buffer)
	return buf
}

// wouldWait reports whether a call of the given estimate arriving now
// would wait for its slot, or be refused: a guess, since calls come and go
// meanwhile.
func (a *admission) wouldWait(bytes int64) bool {
	t, err := a.ticketFor(bytes)
	if err != nil {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return !a.fits(t)
}
