package wire_test

import (
	"bytes"
	"testing"

	"github.com/assignd/assignd/assign/wire"
)

// assignmentFixtures are hand-built from ConsumerProtocolAssignment.json.
var assignmentFixtures = []struct {
	name      string
	in        []byte
	want      wire.Assignment
	canonical bool
}{
	{
		name: "v0 two topics in first-seen order",
		in: hx(`
			0000
			00000002
			0003 666f6f 00000002 00000000 00000001   # foo [0 1]
			0003 626172 00000001 00000002            # bar [2]
			ffffffff                                 # null user data
		`),
		want: wire.Assignment{Version: 0, Partitions: []wire.TopicPartitions{
			{Topic: "foo", Partitions: []int32{0, 1}},
			{Topic: "bar", Partitions: []int32{2}},
		}},
		canonical: true,
	},
	{
		name: "v1 empty",
		in: hx(`
			0001
			00000000
			ffffffff
		`),
		want:      wire.Assignment{Version: 1},
		canonical: true,
	},
	{
		name: "v3 user data",
		in: hx(`
			0003
			00000001 0001 74 00000003 00000002 00000000 00000001  # t [2 0 1], order kept
			00000003 616263                                       # user data "abc"
		`),
		want: wire.Assignment{
			Version:    3,
			Partitions: []wire.TopicPartitions{{Topic: "t", Partitions: []int32{2, 0, 1}}},
			UserData:   []byte("abc"),
		},
		canonical: true,
	},
	{
		name: "v2 empty user data",
		in: hx(`
			0002
			00000000
			00000000
		`),
		want:      wire.Assignment{Version: 2, UserData: []byte{}},
		canonical: true,
	},
	{
		name: "v7 with a future field",
		in: hx(`
			0007
			00000001 0001 74 00000001 00000004
			ffffffff
			00000000 0000          # fields from the future
		`),
		want: wire.Assignment{Version: 7, Partitions: []wire.TopicPartitions{{Topic: "t", Partitions: []int32{4}}}},
	},
	{
		name: "v0 trailing byte",
		in: hx(`
			0000
			00000000
			ffffffff
			00
		`),
		want: wire.Assignment{Version: 0},
	},
}

func TestDecodeAssignmentFixtures(t *testing.T) {
	for _, tc := range assignmentFixtures {
		t.Run(tc.name, func(t *testing.T) {
			var d wire.Decoder
			checkDecodes(t, "Assignment", tc.in, tc.want, wire.DecodeAssignment, d.Assignment, equalAssignment)
		})
	}
}

func TestAppendAssignmentFixtures(t *testing.T) {
	for _, tc := range assignmentFixtures {
		if !tc.canonical {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			checkAppends(t, "Assignment", tc.in, func(dst []byte) []byte {
				return wire.AppendAssignment(dst, tc.want.Version, tc.want.Partitions, tc.want.UserData)
			}, wire.AssignmentSize(tc.want.Partitions, tc.want.UserData))
		})
	}
}

func TestAssignmentVersionsAreByteIdentical(t *testing.T) {
	parts := []wire.TopicPartitions{{Topic: "a", Partitions: []int32{1, 2}}}
	v0 := wire.AppendAssignment(nil, 0, parts, []byte{9})
	for v := int16(1); v <= wire.MaxVersion; v++ {
		got := wire.AppendAssignment(nil, v, parts, []byte{9})
		if !bytes.Equal(got[2:], v0[2:]) {
			t.Errorf("v%d body %x differs from v0 body %x", v, got[2:], v0[2:])
		}
	}
}

func TestAppendAssignmentPanicsOnBadVersion(t *testing.T) {
	for _, v := range []int16{-1, wire.MaxVersion + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AppendAssignment(version %d) did not panic", v)
				}
			}()
			wire.AppendAssignment(nil, v, nil, nil)
		}()
	}
}
