package wire_test

import (
	"bytes"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign/wire"
)

// Round-trip properties: encode, check the size helper (and, for
// subscriptions, that dst's prefix survives), decode with and without a
// Decoder, compare.

func TestSubscriptionRoundTrip(t *testing.T) {
	var d wire.Decoder // shared across cases, as a leader shares one per rebalance
	rapid.Check(t, func(t *rapid.T) {
		s := genSubscription.Draw(t, "subscription")
		prefix := rapid.SliceOfN(rapid.Byte(), 0, 3).Draw(t, "prefix")
		enc := wire.AppendSubscription(bytes.Clone(prefix), &s)
		if !bytes.HasPrefix(enc, prefix) {
			t.Fatalf("prefix %x clobbered: %x", prefix, enc)
		}
		enc = enc[len(prefix):]
		if n := wire.SubscriptionSize(&s); n != len(enc) {
			t.Fatalf("SubscriptionSize = %d, encoded %d", n, len(enc))
		}
		checkDecodes(t, "Subscription", enc, s, wire.DecodeSubscription, d.Subscription, equalSub)
	})
}

func TestAssignmentRoundTrip(t *testing.T) {
	var d wire.Decoder
	rapid.Check(t, func(t *rapid.T) {
		a := genAssignment.Draw(t, "assignment")
		enc := wire.AppendAssignment(nil, a.Version, a.Partitions, a.UserData)
		if n := wire.AssignmentSize(a.Partitions, a.UserData); n != len(enc) {
			t.Fatalf("AssignmentSize = %d, encoded %d", n, len(enc))
		}
		checkDecodes(t, "Assignment", enc, a, wire.DecodeAssignment, d.Assignment, equalAssignment)
	})
}

func TestStickyUserDataRoundTrip(t *testing.T) {
	var d wire.Decoder
	rapid.Check(t, func(t *rapid.T) {
		u := genSticky.Draw(t, "sticky")
		// -1 written as V1 reads back the same as V0: both mean "no
		// generation".
		v1 := u.Generation != -1 || rapid.Bool().Draw(t, "v1 with -1")
		enc := wire.AppendStickyUserData(nil, u.Previous, u.Generation, v1)
		if n := wire.StickyUserDataSize(u.Previous, v1); n != len(enc) {
			t.Fatalf("StickyUserDataSize = %d, encoded %d", n, len(enc))
		}
		checkDecodes(t, "StickyUserData", enc, u, wire.DecodeStickyUserData, d.StickyUserData, equalSticky)
	})
}

func TestCooperativeUserDataRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := rapid.Int32().Draw(t, "generation")
		got, err := wire.DecodeCooperativeUserData(wire.AppendCooperativeUserData(nil, g))
		if err != nil || got != g {
			t.Fatalf("round trip of %d = %d, %v", g, got, err)
		}
	})
}
