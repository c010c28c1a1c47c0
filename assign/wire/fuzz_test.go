package wire_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign/wire"
)

// Fuzz targets, one per decoder. Each asserts that decoding never panics,
// that failures are *DecodeErrors pointing inside the input, that anything
// decoded re-encodes to bytes that decode to the same message and encode
// to the same bytes again (decode→encode→decode is stable), and that
// franz-go's kmsg, when it also accepts the input, reads the same message.
//
//	go test ./assign/wire -run '^$' -fuzz FuzzSubscription -fuzztime 20s

func checkDecodeError(t *testing.T, b []byte, err error) {
	t.Helper()
	var de *wire.DecodeError
	if !errors.As(err, &de) || !errors.Is(err, wire.ErrMalformed) {
		t.Fatalf("error %v (%T) is not a *DecodeError wrapping ErrMalformed", err, err)
	}
	if de.Offset < 0 || de.Offset > len(b) || de.Field == "" || de.Reason == "" {
		t.Fatalf("error %#v does not point inside the %d-byte input", de, len(b))
	}
}

// seed adds decoder's fixtures and the malformed inputs written for it
// ("subscription", "assignment" or "sticky") to f's corpus.
func seed(f *testing.F, decoder string) {
	switch decoder {
	case "subscription":
		for _, tc := range subscriptionFixtures {
			f.Add(tc.in)
		}
	case "assignment":
		for _, tc := range assignmentFixtures {
			f.Add(tc.in)
		}
	case "sticky":
		for _, tc := range stickyFixtures {
			f.Add(tc.in)
		}
	}
	for _, tc := range malformed {
		if tc.decode == decoder {
			f.Add(tc.in)
		}
	}
}

// checkStable asserts that enc, the encoding of want, decodes to want and
// encodes again to the same bytes.
func checkStable[T any](t *testing.T, want T, enc []byte, decode func([]byte) (T, error), equal func(a, b T) bool, encode func(T) []byte) {
	t.Helper()
	again, err := decode(enc)
	if err != nil {
		t.Fatalf("re-encoded %+v as %x, which does not decode: %v", want, enc, err)
	}
	if !equal(again, want) {
		t.Fatalf("round trip: %+v became %+v", want, again)
	}
	if enc2 := encode(again); !bytes.Equal(enc, enc2) {
		t.Fatalf("re-encoding is not stable: %x then %x", enc, enc2)
	}
}

func FuzzSubscription(f *testing.F) {
	seed(f, "subscription")
	f.Fuzz(func(t *testing.T, b []byte) {
		var d wire.Decoder
		s, err := d.Subscription(b)
		plain, plainErr := wire.DecodeSubscription(b)
		if (err == nil) != (plainErr == nil) || (err == nil && !equalSub(s, plain)) {
			t.Fatalf("Decoder and DecodeSubscription disagree: %+v, %v vs %+v, %v", s, err, plain, plainErr)
		}
		if err != nil {
			checkDecodeError(t, b, err)
			return
		}
		var km kmsg.ConsumerMemberMetadata
		if err := km.ReadFrom(b); err != nil {
			t.Fatalf("we read %x as %+v, kmsg fails: %v", b, s, err)
		} else if theirs := fromKmsgSub(km); !equalSub(theirs, s) {
			t.Fatalf("we read %x as %+v, kmsg as %+v", b, s, theirs)
		}

		w := writable(s)
		enc := wire.AppendSubscription(nil, &w)
		if len(enc) != wire.SubscriptionSize(&w) {
			t.Fatalf("SubscriptionSize = %d, encoded %d", wire.SubscriptionSize(&w), len(enc))
		}
		checkStable(t, w, enc, d.Subscription, equalSub, func(s wire.Subscription) []byte {
			return wire.AppendSubscription(nil, &s)
		})
	})
}

func FuzzAssignment(f *testing.F) {
	seed(f, "assignment")
	f.Fuzz(func(t *testing.T, b []byte) {
		var d wire.Decoder
		a, err := d.Assignment(b)
		if err != nil {
			checkDecodeError(t, b, err)
			return
		}
		var km kmsg.ConsumerMemberAssignment
		if err := km.ReadFrom(b); err != nil {
			t.Fatalf("we read %x as %+v, kmsg fails: %v", b, a, err)
		} else if theirs := fromKmsgAssignment(km); !equalAssignment(theirs, a) {
			t.Fatalf("we read %x as %+v, kmsg as %+v", b, a, theirs)
		}

		a.Version = min(a.Version, wire.MaxVersion)
		encode := func(a wire.Assignment) []byte { return wire.AppendAssignment(nil, a.Version, a.Partitions, a.UserData) }
		checkStable(t, a, encode(a), wire.DecodeAssignment, equalAssignment, encode)
	})
}

func FuzzStickyUserData(f *testing.F) {
	seed(f, "sticky")
	f.Fuzz(func(t *testing.T, b []byte) {
		var d wire.Decoder
		u, err := d.StickyUserData(b)
		if err != nil {
			checkDecodeError(t, b, err)
			if u.Generation != -1 || u.Previous != nil {
				t.Fatalf("failed decode returned %+v, want the empty data with generation -1", u)
			}
			return
		}
		// kmsg rejects V0 followed by 1-3 stray bytes, which Java (and we)
		// read as V0; compare only when both accept.
		var km kmsg.StickyMemberMetadata
		if err := km.ReadFrom(b); err == nil {
			if theirs := fromKmsgSticky(km); !equalSticky(theirs, u) {
				t.Fatalf("we read %x as %+v, kmsg as %+v", b, u, theirs)
			}
		}

		v1 := u.Generation != -1
		encode := func(u wire.StickyUserData) []byte {
			return wire.AppendStickyUserData(nil, u.Previous, u.Generation, v1)
		}
		checkStable(t, u, encode(u), wire.DecodeStickyUserData, equalSticky, encode)
	})
}

func FuzzCooperativeUserData(f *testing.F) {
	f.Add([]byte{})
	f.Add(hx(`ffffffff`))
	f.Add(hx(`00000001 02`))
	f.Add(hx(`0102`))
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := wire.DecodeCooperativeUserData(b)
		if err != nil {
			checkDecodeError(t, b, err)
			if g != -1 {
				t.Fatalf("failed decode returned generation %d, want -1", g)
			}
			return
		}
		if len(b) >= 4 && !bytes.Equal(wire.AppendCooperativeUserData(nil, g), b[:4]) {
			t.Fatalf("generation %d does not re-encode to %x", g, b[:4])
		}
	})
}
