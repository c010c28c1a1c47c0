package wire_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/assignd/assignd/assign/wire"
)

// stickyFixtures are hand-built from the StickyAssignor's STICKY_ASSIGNOR_USER_DATA
// V0/V1 schemas (legacy Struct encoding, no version prefix). v1 marks the
// fixtures AppendStickyUserData reproduces with v1 = true; canonical those
// it reproduces at all.
var stickyFixtures = []struct {
	name      string
	in        []byte
	want      wire.StickyUserData
	canonical bool
	v1        bool
}{
	{
		name: "V0",
		in: hx(`
			00000001
			0001 74 00000002 00000001 00000002   # t [1 2]
		`),
		want:      wire.StickyUserData{Previous: []wire.TopicPartitions{{Topic: "t", Partitions: []int32{1, 2}}}, Generation: -1},
		canonical: true,
	},
	{
		name: "V1",
		in: hx(`
			00000002
			0001 61 00000001 00000000            # a [0]
			0001 62 00000000                     # b []
			00000005                             # generation 5
		`),
		want: wire.StickyUserData{Previous: []wire.TopicPartitions{
			{Topic: "a", Partitions: []int32{0}}, {Topic: "b"},
		}, Generation: 5},
		canonical: true,
		v1:        true,
	},
	{
		name: "V1 nothing owned",
		in: hx(`
			00000000
			00000003
		`),
		want:      wire.StickyUserData{Generation: 3},
		canonical: true,
		v1:        true,
	},
	{
		name: "V0 with 3 stray bytes reads as V0",
		in: hx(`
			00000000
			010203
		`),
		want: wire.StickyUserData{Generation: -1},
	},
	{
		name: "V1 with trailing bytes",
		in: hx(`
			00000000
			00000008
			ff
		`),
		want: wire.StickyUserData{Generation: 8},
	},
	{
		name: "empty: no prior assignment",
		in:   nil,
		want: wire.StickyUserData{Generation: -1},
	},
}

func TestDecodeStickyUserDataFixtures(t *testing.T) {
	for _, tc := range stickyFixtures {
		t.Run(tc.name, func(t *testing.T) {
			var d wire.Decoder
			checkDecodes(t, "StickyUserData", tc.in, tc.want, wire.DecodeStickyUserData, d.StickyUserData, equalSticky)
		})
	}
}

func TestAppendStickyUserDataFixtures(t *testing.T) {
	for _, tc := range stickyFixtures {
		if !tc.canonical {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			checkAppends(t, "StickyUserData", tc.in, func(dst []byte) []byte {
				return wire.AppendStickyUserData(dst, tc.want.Previous, tc.want.Generation, tc.v1)
			}, wire.StickyUserDataSize(tc.want.Previous, tc.v1))
		})
	}
}

func TestDecodeStickyUserDataFailureFallsBackToNoGeneration(t *testing.T) {
	got, err := wire.DecodeStickyUserData(hx(`00000001 0005 61`)) // topic length 5, 1 byte left
	if !errors.Is(err, wire.ErrMalformed) {
		t.Fatalf("error = %v, want ErrMalformed", err)
	}
	if got.Generation != -1 || got.Previous != nil {
		t.Fatalf("result on error = %+v, want the empty data with generation -1", got)
	}
}

func TestCooperativeUserData(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      []byte
		want    int32
		wantErr bool
	}{
		{"generation 3", hx(`00000003`), 3, false},
		{"generation -1", hx(`ffffffff`), -1, false},
		{"max generation", hx(`7fffffff`), 1<<31 - 1, false},
		{"trailing bytes ignored", hx(`00000002 00`), 2, false},
		{"absent", nil, -1, false},
		{"empty", []byte{}, -1, false},
		{"short", hx(`000001`), -1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := wire.DecodeCooperativeUserData(tc.in)
			if (err != nil) != tc.wantErr || got != tc.want {
				t.Fatalf("DecodeCooperativeUserData(%x) = %d, %v; want %d, error %v", tc.in, got, err, tc.want, tc.wantErr)
			}
			if err != nil && !errors.Is(err, wire.ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			if tc.wantErr || len(tc.in) != 4 {
				return
			}
			if enc := wire.AppendCooperativeUserData(nil, got); !bytes.Equal(enc, tc.in) || len(enc) != wire.CooperativeUserDataSize {
				t.Fatalf("AppendCooperativeUserData(%d) = %x, want %x", got, enc, tc.in)
			}
		})
	}
}
