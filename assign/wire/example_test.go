package wire_test

import (
	"errors"
	"fmt"

	"github.com/assignd/assignd/assign/wire"
)

func ExampleAppendSubscription() {
	s := wire.Subscription{
		Version:    3,
		Topics:     []string{"orders"},
		UserData:   wire.AppendCooperativeUserData(nil, 4),
		Owned:      []wire.TopicPartitions{{Topic: "orders", Partitions: []int32{0, 1}}},
		Generation: 4,
		Rack:       "eu-1a",
	}
	b := wire.AppendSubscription(nil, &s)
	fmt.Println(len(b) == wire.SubscriptionSize(&s))
	fmt.Printf("%x\n", b)
	// Output:
	// true
	// 00030000000100066f726465727300000004000000040000000100066f726465727300000002000000000000000100000004000565752d3161
}

func ExampleDecoder_Subscription() {
	// A member's JoinGroup metadata: version 2, topics [orders payments],
	// no user data, owns orders-3 in generation 7.
	b := wire.AppendSubscription(nil, &wire.Subscription{
		Version:    2,
		Topics:     []string{"orders", "payments"},
		Owned:      []wire.TopicPartitions{{Topic: "orders", Partitions: []int32{3}}},
		Generation: 7,
	})

	var d wire.Decoder // one per rebalance: interns topic names across members
	s, err := d.Subscription(b)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.Version, s.Topics, s.UserData == nil, s.Owned, s.Generation)
	// Output:
	// 2 [orders payments] true [{orders [3]}] 7
}

func ExampleAppendAssignment() {
	parts := []wire.TopicPartitions{{Topic: "orders", Partitions: []int32{0, 2}}}
	b := wire.AppendAssignment(nil, 3, parts, nil)
	fmt.Printf("%x\n", b)

	a, err := wire.DecodeAssignment(b)
	fmt.Println(a.Version, a.Partitions, a.UserData == nil, err)
	// Output:
	// 00030000000100066f7264657273000000020000000000000002ffffffff
	// 3 [{orders [0 2]}] true <nil>
}

func ExampleDecodeStickyUserData() {
	prev := []wire.TopicPartitions{{Topic: "orders", Partitions: []int32{1}}}
	v0 := wire.AppendStickyUserData(nil, prev, -1, false)
	v1 := wire.AppendStickyUserData(nil, prev, 12, true)

	for _, b := range [][]byte{v0, v1, nil} {
		u, err := wire.DecodeStickyUserData(b)
		fmt.Println(u.Previous, u.Generation, err)
	}
	// Output:
	// [{orders [1]}] -1 <nil>
	// [{orders [1]}] 12 <nil>
	// [] -1 <nil>
}

func ExampleDecodeCooperativeUserData() {
	g, err := wire.DecodeCooperativeUserData(wire.AppendCooperativeUserData(nil, 5))
	fmt.Println(g, err)

	// Garbage falls back to -1, the generation the Java assignor assumes.
	g, err = wire.DecodeCooperativeUserData([]byte{1, 2})
	fmt.Println(g, errors.Is(err, wire.ErrMalformed))
	// Output:
	// 5 <nil>
	// -1 true
}

func ExampleDecodeError() {
	// Version 1, no topics, null user data, then an owned-partitions array
	// that claims 1,000 entries in 2 bytes.
	b := []byte{0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0, 0, 0x03, 0xe8, 0, 0}
	_, err := wire.DecodeSubscription(b)

	var de *wire.DecodeError
	if errors.As(err, &de) {
		fmt.Println(de.Field, de.Offset)
	}
	fmt.Println(err)
	// Output:
	// OwnedPartitions 10
	// ConsumerProtocolSubscription: OwnedPartitions at byte 10: array count 1000 needs at least 6000 bytes, 2 left
}
