package wire_test

import (
	"bytes"
	"testing"

	"github.com/assignd/assignd/assign/wire"
)

// v3Gen3 is a v3 subscription up to its rack: no topics, null user
// data, no owned partitions, generation 3.
const v3Gen3 = `
	0003                                  # version
	00000000                              # topics: none
	ffffffff                              # user data: null
	00000000                              # owned: none
	00000003                              # generation
`

// subscriptionFixtures are hand-built from the schema in the Java client's
// ConsumerProtocolSubscription.json. canonical marks the fixtures that
// AppendSubscription must reproduce byte for byte from want.
var subscriptionFixtures = []struct {
	name      string
	in        []byte
	want      wire.Subscription
	canonical bool
}{
	{
		name: "v0 two topics null user data",
		in: hx(`
			0000                # version 0
			00000002            # 2 topics
			0003 626172         # "bar"
			0003 666f6f         # "foo"
			ffffffff            # user data null
		`),
		want:      wire.Subscription{Version: 0, Topics: []string{"bar", "foo"}, Generation: -1},
		canonical: true,
	},
	{
		name: "v0 no topics empty user data",
		in: hx(`
			0000
			00000000            # 0 topics
			00000000            # user data: empty, not null
		`),
		want:      wire.Subscription{Version: 0, UserData: []byte{}, Generation: -1},
		canonical: true,
	},
	{
		name: "v0 trailing bytes ignored",
		in: hx(`
			0000
			00000001 0001 61    # ["a"]
			00000001 07         # user data 07
			cafebabe            # trailing
		`),
		want: wire.Subscription{Version: 0, Topics: []string{"a"}, UserData: []byte{7}, Generation: -1},
	},
	{
		name: "v1 owned partitions",
		in: hx(`
			0001
			00000001 0003 666f6f              # ["foo"]
			00000002 0102                     # user data 01 02
			00000001                          # 1 owned topic
			0003 666f6f 00000002 00000000 00000002  # foo [0 2]
		`),
		want: wire.Subscription{
			Version: 1, Topics: []string{"foo"}, UserData: []byte{1, 2},
			Owned:      []wire.TopicPartitions{{Topic: "foo", Partitions: []int32{0, 2}}},
			Generation: -1,
		},
		canonical: true,
	},
	{
		name: "v1 owned topic with no partitions and a negative partition",
		in: hx(`
			0001
			00000002 0001 61 0001 62          # ["a" "b"]
			ffffffff                          # null user data
			00000002
			0001 61 00000000                  # a []
			0001 62 00000001 ffffffff         # b [-1], kept as sent
		`),
		want: wire.Subscription{
			Version: 1, Topics: []string{"a", "b"},
			Owned:      []wire.TopicPartitions{{Topic: "a"}, {Topic: "b", Partitions: []int32{-1}}},
			Generation: -1,
		},
		canonical: true,
	},
	{
		name: "v2 generation",
		in: hx(`
			0002
			00000001 0001 74                  # ["t"]
			ffffffff
			00000001 0001 74 00000001 00000005  # t [5]
			00000007                          # generation 7
		`),
		want: wire.Subscription{
			Version: 2, Topics: []string{"t"},
			Owned:      []wire.TopicPartitions{{Topic: "t", Partitions: []int32{5}}},
			Generation: 7,
		},
		canonical: true,
	},
	{
		name: "v3 rack",
		in: hx(`
			0003
			00000001 0001 74
			00000004 ffffffff                 # cooperative user data: generation -1
			00000000                          # owns nothing
			ffffffff                          # generation -1 (absent)
			0002 7231                         # rack "r1"
		`),
		want: wire.Subscription{
			Version: 3, Topics: []string{"t"}, UserData: []byte{0xff, 0xff, 0xff, 0xff},
			Generation: -1, Rack: "r1",
		},
		canonical: true,
	},
	{
		name: "v3 null rack",
		in: hx(v3Gen3 + `
			ffff                              # rack null
		`),
		want:      wire.Subscription{Version: 3, Generation: 3},
		canonical: true,
	},
	{
		name: "v3 empty rack reads as absent",
		in: hx(v3Gen3 + `
			0000                              # rack ""
		`),
		want: wire.Subscription{Version: 3, Generation: 3},
	},
	{
		name: "v2 user data with a negative length other than -1 is null",
		in: hx(`
			0002
			00000000
			fffffffe                          # -2: null, as in the Java client
			00000000
			00000001
		`),
		want: wire.Subscription{Version: 2, Generation: 1},
	},
	{
		name: "v4 read with the v3 schema, newer fields ignored",
		in: hx(`
			0004
			00000001 0001 74
			ffffffff
			00000001 0001 74 00000002 00000000 00000001
			00000009
			0002 7232                         # rack "r2"
			00000001 0001 78                  # a field from the future
		`),
		want: wire.Subscription{
			Version: 4, Topics: []string{"t"},
			Owned:      []wire.TopicPartitions{{Topic: "t", Partitions: []int32{0, 1}}},
			Generation: 9, Rack: "r2",
		},
	},
	{
		name: "v32767 read as v3",
		in: hx(`
			7fff
			00000000
			ffffffff
			00000000
			ffffffff
			ffff
		`),
		want: wire.Subscription{Version: 32767, Generation: -1},
	},
}

func TestDecodeSubscriptionFixtures(t *testing.T) {
	for _, tc := range subscriptionFixtures {
		t.Run(tc.name, func(t *testing.T) {
			var d wire.Decoder
			checkDecodes(t, "Subscription", tc.in, tc.want, wire.DecodeSubscription, d.Subscription, equalSub)
		})
	}
}

func TestAppendSubscriptionFixtures(t *testing.T) {
	for _, tc := range subscriptionFixtures {
		if !tc.canonical {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			checkAppends(t, "Subscription", tc.in, func(dst []byte) []byte { return wire.AppendSubscription(dst, &tc.want) },
				wire.SubscriptionSize(&tc.want))
		})
	}
}

func TestAppendSubscriptionDropsFieldsAboveVersion(t *testing.T) {
	full := wire.Subscription{
		Topics: []string{"t"}, UserData: []byte{1},
		Owned:      []wire.TopicPartitions{{Topic: "t", Partitions: []int32{3}}},
		Generation: 4, Rack: "r",
	}
	for v := int16(0); v <= wire.MaxVersion; v++ {
		s := full
		s.Version = v
		got := mustSub(t, wire.AppendSubscription(nil, &s))
		if want := writable(s); !equalSub(got, want) {
			t.Errorf("v%d: round trip = %+v, want %+v", v, got, want)
		}
	}
}

func TestAppendSubscriptionPanicsOnBadInput(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    wire.Subscription
	}{
		{"negative version", wire.Subscription{Version: -1}},
		{"version above MaxVersion", wire.Subscription{Version: wire.MaxVersion + 1}},
		{"topic too long", wire.Subscription{Topics: []string{string(make([]byte, wire.MaxStringLen+1))}}},
		{"rack too long", wire.Subscription{Version: 3, Rack: string(make([]byte, wire.MaxStringLen+1))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("AppendSubscription did not panic")
				}
			}()
			wire.AppendSubscription(nil, &tc.s)
		})
	}
}

func TestDecodedUserDataIsCapped(t *testing.T) {
	in := subscriptionFixtures[3].in // v1, user data 01 02 followed by more fields
	s := mustSub(t, in)
	before := bytes.Clone(in)
	_ = append(s.UserData, 0xAA, 0xBB, 0xCC, 0xDD)
	if !bytes.Equal(in, before) {
		t.Fatal("appending to decoded UserData overwrote the input")
	}
}
