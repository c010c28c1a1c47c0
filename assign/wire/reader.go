package wire

import (
	"encoding/binary"
	"fmt"
)

// reader walks one message. Every method checks the bytes left before it
// reads and reports a *DecodeError naming the field otherwise, so the
// decoders above it never index past the input and never trust a length.
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

func (r *reader) need(p path, n int) error {
	if r.left() < n {
		return r.fail(r.off, p, "need %d bytes, %d left", n, r.left())
	}
	return nil
}

func (r *reader) int16(p path) (int16, error) {
	if err := r.need(p, 2); err != nil {
		return 0, err
	}
	v := int16(binary.BigEndian.Uint16(r.buf[r.off:]))
	r.off += 2
	return v, nil
}

func (r *reader) int32(p path) (int32, error) {
	if err := r.need(p, 4); err != nil {
		return 0, err
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
	n, err := r.int32(p)
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, r.fail(at, p, "array count %d is negative (null is not allowed)", n)
	}
	if int64(n)*int64(minElem) > int64(r.left()) {
		return 0, r.fail(at, p, "array count %d needs at least %d bytes, %d left", n, int64(n)*int64(minElem), r.left())
	}
	return int(n), nil
}

// string reads a non-nullable string and returns its bytes, aliasing the
// input.
func (r *reader) string(p path) ([]byte, error) {
	at := r.off
	n, err := r.int16(p)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, r.fail(at, p, "string length %d is negative (null is not allowed)", n)
	}
	return r.span(at, p, int(n))
}

// nullableString reads a nullable string; null is reported as ok == false.
func (r *reader) nullableString(p path) (b []byte, ok bool, err error) {
	at := r.off
	n, err := r.int16(p)
	if err != nil || n < 0 {
		return nil, false, err
	}
	b, err = r.span(at, p, int(n))
	return b, err == nil, err
}

// nullableBytes reads a nullable byte array; null is returned as nil and an
// empty array as a non-nil empty slice. The result aliases the input, with
// its capacity cut to its length so that an append cannot overwrite the
// input.
func (r *reader) nullableBytes(p path) ([]byte, error) {
	at := r.off
	n, err := r.int32(p)
	if err != nil || n < 0 {
		return nil, err
	}
	// Slicing the (non-nil) input never yields nil, so an empty array stays
	// distinct from null.
	return r.span(at, p, int(n))
}

func (r *reader) span(at int, p path, n int) ([]byte, error) {
	if r.left() < n {
		return nil, r.fail(at, p, "length %d exceeds the %d bytes left", n, r.left())
	}
	b := r.buf[r.off : r.off+n : r.off+n]
	r.off += n
	return b, nil
}
