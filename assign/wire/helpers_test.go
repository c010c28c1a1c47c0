package wire_test

import (
	"encoding/hex"
	"strings"

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
