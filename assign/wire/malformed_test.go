package wire_test

import (
	"errors"
	"runtime"
	"testing"

	"github.com/assignd/assignd/assign/wire"
)

// malformed lists inputs every decoder must reject, with the field and
// offset the error must name.
var malformed = []struct {
	name   string
	decode string // "subscription", "assignment" or "sticky"
	in     []byte
	field  string
	offset int
}{
	{"empty subscription", "subscription", nil, "Version", 0},
	{"one byte", "subscription", hx(`00`), "Version", 0},
	{"negative version", "subscription", hx(`ffff 00000000 ffffffff`), "Version", 0},
	{"no topic count", "subscription", hx(`0000 0000`), "Topics", 2},
	{"null topic array", "subscription", hx(`0000 ffffffff ffffffff`), "Topics", 2},
	{"topic count beyond input", "subscription", hx(`0000 7fffffff 0001 61`), "Topics", 2},
	{"null topic", "subscription", hx(`0000 00000001 ffff ffffffff`), "Topics[0]", 6},
	{"topic longer than input", "subscription", hx(`0000 00000002 0001 61 0009 6263`), "Topics[1]", 9},
	{"no user data", "subscription", hx(`0000 00000000`), "UserData", 6},
	{"user data longer than input", "subscription", hx(`0000 00000000 00000005 0102`), "UserData", 6},
	{"v1 without owned", "subscription", hx(`0001 00000000 ffffffff`), "OwnedPartitions", 10},
	{"v1 null owned array", "subscription", hx(`0001 00000000 ffffffff ffffffff`), "OwnedPartitions", 10},
	{"v1 owned count beyond input", "subscription", hx(`0001 00000000 ffffffff 00000002 0001 61 00000000`), "OwnedPartitions", 10},
	{"v1 owned null topic", "subscription", hx(`0001 00000000 ffffffff 00000001 ffff 00000000`), "OwnedPartitions[0].Topic", 14},
	{"v1 owned partition count beyond input", "subscription", hx(`0001 00000000 ffffffff 00000001 0001 61 00000002 00000001`), "OwnedPartitions[0].Partitions", 17},
	{"v1 owned negative partition count", "subscription", hx(`0001 00000000 ffffffff 00000001 0001 61 80000000`), "OwnedPartitions[0].Partitions", 17},
	{"v1 second owned entry cut", "subscription", hx(`0001 00000000 ffffffff 00000002 0001 61 00000000 0001 62 000000`), "OwnedPartitions[1].Partitions", 24},
	{"v2 without generation", "subscription", hx(`0002 00000000 ffffffff 00000000 0000`), "GenerationId", 14},
	{"v3 without rack", "subscription", hx(`0003 00000000 ffffffff 00000000 ffffffff`), "RackId", 18},
	{"v3 rack longer than input", "subscription", hx(`0003 00000000 ffffffff 00000000 ffffffff 0003 61`), "RackId", 18},
	{"v9 cut in v3 fields", "subscription", hx(`0009 00000000 ffffffff 00000000 ffffff`), "GenerationId", 14},

	{"empty assignment", "assignment", nil, "Version", 0},
	{"assignment negative version", "assignment", hx(`8000 00000000 ffffffff`), "Version", 0},
	{"assignment null partitions", "assignment", hx(`0000 ffffffff ffffffff`), "AssignedPartitions", 2},
	{"assignment count beyond input", "assignment", hx(`0000 01000000 ffffffff`), "AssignedPartitions", 2},
	{"assignment partitions cut", "assignment", hx(`0000 00000001 0001 74 00000004 00000000 00000001 ffffffff`), "AssignedPartitions[0].Partitions", 9},
	{"assignment no user data", "assignment", hx(`0000 00000000`), "UserData", 6},
	{"assignment user data cut", "assignment", hx(`0000 00000000 00000002 01`), "UserData", 6},

	{"sticky one byte", "sticky", hx(`00`), "PreviousAssignment", 0},
	{"sticky null array", "sticky", hx(`ffffffff 00000001`), "PreviousAssignment", 0},
	{"sticky count beyond input", "sticky", hx(`7fffffff 00000001`), "PreviousAssignment", 0},
	{"sticky negative topic length", "sticky", hx(`00000001 fffe 00000000`), "PreviousAssignment[0].Topic", 4},
	{"sticky partitions cut", "sticky", hx(`00000001 0001 74 00000002 00000001 0000`), "PreviousAssignment[0].Partitions", 7},
}

func decodeAny(kind string, b []byte) error {
	var err error
	switch kind {
	case "subscription":
		_, err = wire.DecodeSubscription(b)
	case "assignment":
		_, err = wire.DecodeAssignment(b)
	case "sticky":
		_, err = wire.DecodeStickyUserData(b)
	default:
		panic("unknown decoder " + kind)
	}
	return err
}

func TestDecodersRejectMalformedInput(t *testing.T) {
	for _, tc := range malformed {
		t.Run(tc.name, func(t *testing.T) {
			err := decodeAny(tc.decode, tc.in)
			if !errors.Is(err, wire.ErrMalformed) {
				t.Fatalf("error = %v, want one wrapping ErrMalformed", err)
			}
			var de *wire.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *DecodeError", err)
			}
			if de.Field != tc.field || de.Offset != tc.offset {
				t.Fatalf("error names %s at byte %d, want %s at byte %d (%v)", de.Field, de.Offset, tc.field, tc.offset, err)
			}
			if de.Reason == "" || de.Struct == "" {
				t.Fatalf("error lacks a struct or reason: %#v", de)
			}
		})
	}
}

// TestLengthFieldsDoNotDriveAllocation decodes short inputs whose counts
// claim billions of elements: an unchecked count would allocate gigabytes.
func TestLengthFieldsDoNotDriveAllocation(t *testing.T) {
	inputs := map[string][]byte{
		"subscription": hx(`0001 7fffffff`),
		"assignment":   hx(`0000 7fffffff 00`),
		"sticky":       hx(`00000001 0001 74 7fffffff 00000000`),
	}
	for kind, in := range inputs {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := decodeAny(kind, in)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: decoding %x succeeded", kind, in)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: decoding %d bytes allocated %d bytes", kind, len(in), grew)
		}
	}
}
