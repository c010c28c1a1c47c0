package kafkabroker

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/testbed/loopback"
)

// Request is one request a client sent through the tap, decoded.
type Request struct {
	// ClientID is the client.id of the request header.
	ClientID string
	// Body is the request, its version set; e.g. a
	// *kmsg.SyncGroupRequest.
	Body kmsg.Request
}

// Observe calls fn with every request a client sends through the tap,
// before the broker receives it, until the returned stop is called.
// Calls come from the connections' goroutines, each connection's in
// order; fn must be quick and safe for concurrent use. It fails unless
// the broker was started [WithTap].
func (b *Broker) Observe(fn func(Request)) (stop func(), err error) {
	if b.tap == nil {
		return nil, errors.New("kafkabroker: Observe needs a broker started WithTap")
	}
	return b.tap.observe(fn), nil
}

// maxFrame bounds one request frame the tap reads (the broker's own
// socket.request.max.bytes default is 100 MiB).
const maxFrame = 100 << 20

// tap is a TCP proxy in front of the broker that decodes every request
// on its way through; responses pass untouched.
type tap struct {
	proxy *loopback.Proxy

	mu        sync.Mutex
	observers map[int]func(Request)
	next      int
}

func startTap(upstream string) (*tap, error) {
	t := &tap{observers: map[int]func(Request){}}
	p, err := loopback.StartProxy(upstream, t.forward, func(up, c net.Conn) {
		_, _ = io.Copy(c, up) // responses, untouched
	})
	if err != nil {
		return nil, fmt.Errorf("kafkabroker: tap: %w", err)
	}
	t.proxy = p
	return t, nil
}

func (t *tap) addr() string { return t.proxy.Addr() }

func (t *tap) close() { t.proxy.Close() }

func (t *tap) observe(fn func(Request)) func() {
	t.mu.Lock()
	defer t.mu.Unlock()
	id := t.next
	t.next++
	t.observers[id] = fn
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		delete(t.observers, id)
	}
}

// forward copies request frames from the client to the broker, showing
// each to the observers first.
func (t *tap) forward(c, up net.Conn) {
	var size [4]byte
	for {
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		n := binary.BigEndian.Uint32(size[:])
		if n > maxFrame {
			return
		}
		frame := make([]byte, 4+n)
		copy(frame, size[:])
		if _, err := io.ReadFull(c, frame[4:]); err != nil {
			return
		}
		if req, ok := decodeRequest(frame[4:]); ok {
			t.notify(req)
		}
		if _, err := up.Write(frame); err != nil {
			return
		}
	}
}

func (t *tap) notify(r Request) {
	t.mu.Lock()
	fns := make([]func(Request), 0, len(t.observers))
	for _, fn := range t.observers {
		fns = append(fns, fn)
	}
	t.mu.Unlock()
	for _, fn := range fns {
		fn(r)
	}
}

// decodeRequest decodes one request frame (without its size): the
// request header (v1, or v2 with tagged fields for flexible versions) and
// the body. A request this kmsg does not know is skipped.
func decodeRequest(b []byte) (Request, bool) {
	if len(b) < 10 {
		return Request{}, false
	}
	key := int16(binary.BigEndian.Uint16(b[0:]))
	version := int16(binary.BigEndian.Uint16(b[2:]))
	req := kmsg.RequestForKey(key)
	if req == nil {
		return Request{}, false
	}
	req.SetVersion(version)
	var r Request
	off := 8 // key, version, correlation id
	if l := int16(binary.BigEndian.Uint16(b[off:])); l >= 0 {
		off += 2
		if off+int(l) > len(b) {
			return Request{}, false
		}
		r.ClientID = string(b[off : off+int(l)])
		off += int(l)
	} else {
		off += 2
	}
	if req.IsFlexible() {
		// The header's tagged fields: a count, then (tag, size, bytes).
		n, k := binary.Uvarint(b[off:])
		if k <= 0 {
			return Request{}, false
		}
		off += k
		for range n {
			_, k := binary.Uvarint(b[off:])
			if k <= 0 {
				return Request{}, false
			}
			off += k
			size, k := binary.Uvarint(b[off:])
			if k <= 0 || off+k+int(size) > len(b) {
				return Request{}, false
			}
			off += k + int(size)
		}
	}
	if err := req.ReadFrom(b[off:]); err != nil {
		return Request{}, false
	}
	r.Body = req
	return r, true
}
