package wire_test

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign/wire"
)

// hx builds a byte fixture from hex written the way the protocol reads: one
// field per line, spaces ignored, "#" starting a comment.
func hx(s string) []byte {
	var clean strings.Builder
	for _, line := range strings.Split(s, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		clean.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(clean.String())
	if err != nil {
		panic("bad hex fixture: " + err.Error())
	}
	return b
}

// The wire cannot tell an empty array from an absent one, so comparisons
// treat nil and empty slices of topics and partitions alike. User data is
// compared exactly: null and empty differ on the wire.

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalTPs(a, b []wire.TopicPartitions) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Topic != b[i].Topic || len(a[i].Partitions) != len(b[i].Partitions) {
			return false
		}
		for j := range a[i].Partitions {
			if a[i].Partitions[j] != b[i].Partitions[j] {
				return false
			}
		}
	}
	return true
}

func equalBytes(a, b []byte) bool {
	if (a == nil) != (b == nil) {
		return false
	}
	return string(a) == string(b)
}

func equalSub(a, b wire.Subscription) bool {
	return a.Version == b.Version && equalStrings(a.Topics, b.Topics) && equalBytes(a.UserData, b.UserData) &&
		equalTPs(a.Owned, b.Owned) && a.Generation == b.Generation && a.Rack == b.Rack
}

func equalAssignment(a, b wire.Assignment) bool {
	return a.Version == b.Version && equalTPs(a.Partitions, b.Partitions) && equalBytes(a.UserData, b.UserData)
}

func equalSticky(a, b wire.StickyUserData) bool {
	return a.Generation == b.Generation && equalTPs(a.Previous, b.Previous)
}

// writable returns s as it reads back after encoding: a version above
// MaxVersion is written as MaxVersion, and the fields its version does not
// carry take their defaults.
func writable(s wire.Subscription) wire.Subscription {
	s.Version = min(s.Version, wire.MaxVersion)
	if s.Version < 1 {
		s.Owned = nil
	}
	if s.Version < 2 {
		s.Generation = -1
	}
	if s.Version < 3 {
		s.Rack = ""
	}
	return s
}

// tester is what the shared checks need from *testing.T and *rapid.T
// (rapid.T does not implement all of testing.TB).
type tester interface {
	Helper()
	Fatalf(format string, args ...any)
}

func mustSub(t tester, b []byte) wire.Subscription {
	t.Helper()
	s, err := wire.DecodeSubscription(b)
	if err != nil {
		t.Fatalf("DecodeSubscription(%x): %v", b, err)
	}
	return s
}

// checkDecodes asserts that wire.Decode<what> (decode) and the Decoder's
// method (viaDecoder) both read in as want.
func checkDecodes[T any](t tester, what string, in []byte, want T, decode, viaDecoder func([]byte) (T, error), equal func(a, b T) bool) {
	t.Helper()
	got, err := decode(in)
	if err != nil {
		t.Fatalf("Decode%s: %v", what, err)
	}
	if !equal(got, want) {
		t.Fatalf("Decode%s =\n%+v\nwant\n%+v", what, got, want)
	}
	if got2, err := viaDecoder(in); err != nil || !equal(got2, got) {
		t.Fatalf("Decoder.%s = %+v, %v; want %+v", what, got2, err, got)
	}
}

// checkAppends asserts that wire.Append<what> (appendTo) keeps what dst
// holds and appends in, whose length <what>Size (size) predicts.
func checkAppends(t *testing.T, what string, in []byte, appendTo func(dst []byte) []byte, size int) {
	t.Helper()
	prefix := []byte("prefix")
	got := appendTo(bytes.Clone(prefix))
	if !bytes.HasPrefix(got, prefix) {
		t.Fatalf("Append%s clobbered dst: %x", what, got)
	}
	got = got[len(prefix):]
	if !bytes.Equal(got, in) {
		t.Fatalf("Append%s =\n%x\nwant\n%x", what, got, in)
	}
	if size != len(got) {
		t.Fatalf("%sSize = %d, encoded %d bytes", what, size, len(got))
	}
}
