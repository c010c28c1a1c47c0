package wire

import (
	"encoding/binary"
	"fmt"
)

// reader walks one message. Every read checks the bytes left before it
// reads and reports a *DecodeError naming the field otherwise, so the
// decoders above it never index past the input and never trust a length.
//
// The methods serve the fields read once per message. The per-element
// loops (topic names, topic-partition arrays) do the same checks inline on
// local variables, because a method call per element, with its field path
// argument, costs more than the read; both report errors through the
// out-of-line constructors below, so the messages are the same.
type reader struct {
	buf   []byte
	off   int
	strct string // message name for errors
}

func newReader(b []byte, strct string) reader { return reader{buf: b, strct: strct} }

func (r *reader) left() int { return len(r.buf) - r.off }

func (r *reader) fail(at int, p path, format string, args ...any) error {
	return &DecodeError{Struct: r.strct, Field: p.String(), Offset: at, Reason: fmt.Sprintf(format, args...)}
}

// Error constructors, out of line so the checks that call them stay small.

//go:noinline
func (r *reader) errShort(at int, p path, n int) error {
	return r.fail(at, p, "need %d bytes, %d left", n, len(r.buf)-at)
}

//go:noinline
func (r *reader) errNegativeCount(at int, p path, n int) error {
	return r.fail(at, p, "array count %d is negative (null is not allowed)", n)
}

// errCountOverrun: an array of n elements of at least minElem bytes each
// cannot fit in the bytes after its 4-byte count at at.
//
//go:noinline
func (r *reader) errCountOverrun(at int, p path, n, minElem int) error {
	return r.fail(at, p, "array count %d needs at least %d bytes, %d left", n, int64(n)*int64(minElem), len(r.buf)-at-4)
}

//go:noinline
func (r *reader) errNegativeString(at int, p path, n int) error {
	return r.fail(at, p, "string length %d is negative (null is not allowed)", n)
}

// errOverrun: a string or byte array of n bytes, whose length prefix of
// header bytes starts at at, runs past the input.
//
//go:noinline
func (r *reader) errOverrun(at int, p path, n, header int) error {
	return r.fail(at, p, "length %d exceeds the %d bytes left", n, len(r.buf)-at-header)
}

func (r *reader) int16(p path) (int16, error) {
	if r.left() < 2 {
		return 0, r.errShort(r.off, p, 2)
	}
	v := int16(binary.BigEndian.Uint16(r.buf[r.off:]))
	r.off += 2
	return v, nil
}

func (r *reader) int32(p path) (int32, error) {
	if r.left() < 4 {
		return 0, r.errShort(r.off, p, 4)
	}
	v := int32(binary.BigEndian.Uint32(r.buf[r.off:]))
	r.off += 4
	return v, nil
}

// arrayLen reads a non-nullable array count and checks that the rest of the
// input can hold that many elements of at least minElem bytes each, so the
// caller may allocate count elements safely.
func (r *reader) arrayLen(p path, minElem int) (int, error) {
	at := r.off
	n32, err := r.int32(p)
	if err != nil {
		return 0, err
	}
	n := int(n32)
	if n < 0 {
		return 0, r.errNegativeCount(at, p, n)
	}
	if n > r.left()/minElem {
		return 0, r.errCountOverrun(at, p, n, minElem)
	}
	return n, nil
}

// nullableString reads a nullable string, aliasing the input; null is
// reported as ok == false.
func (r *reader) nullableString(p path) (b []byte, ok bool, err error) {
	at := r.off
	n, err := r.int16(p)
	if err != nil || n < 0 {
		return nil, false, err
	}
	if int(n) > r.left() {
		return nil, false, r.errOverrun(at, p, int(n), 2)
	}
	b = r.buf[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return b, true, nil
}

// nullableBytes reads a nullable byte array; null is returned as nil and an
// empty array as a non-nil empty slice (slicing the non-nil input never
// yields nil). The result aliases the input, with its capacity cut to its
// length so that an append cannot overwrite the input.
func (r *reader) nullableBytes(p path) ([]byte, error) {
	at := r.off
	n, err := r.int32(p)
	if err != nil || n < 0 {
		return nil, err
	}
	if int(n) > r.left() {
		return nil, r.errOverrun(at, p, int(n), 4)
	}
	b := r.buf[r.off : r.off+int(n) : r.off+int(n)]
	r.off += int(n)
	return b, nil
}
