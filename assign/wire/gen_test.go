package wire_test

import (
	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign/wire"
)

// Generators for the property tests. Topic names come from a small
// alphabet so that repeats (and thus interning) are common.

var genTopic = rapid.StringMatching(`[a-c._-]{0,4}`)

var genPartitions = rapid.Custom(func(t *rapid.T) []int32 {
	// Mostly small partition numbers, sometimes anything (negative ones are
	// carried as sent).
	if rapid.IntRange(0, 9).Draw(t, "wild") == 0 {
		return rapid.SliceOfN(rapid.Int32(), 0, 6).Draw(t, "partitions")
	}
	return rapid.SliceOfN(rapid.Int32Range(0, 64), 0, 6).Draw(t, "partitions")
})

var genTPs = rapid.Custom(func(t *rapid.T) []wire.TopicPartitions {
	n := rapid.IntRange(0, 6).Draw(t, "topics")
	if n == 0 {
		return nil
	}
	tps := make([]wire.TopicPartitions, n)
	for i := range tps {
		tps[i] = wire.TopicPartitions{Topic: genTopic.Draw(t, "topic"), Partitions: genPartitions.Draw(t, "partitions")}
	}
	return tps
})

var genUserData = rapid.Custom(func(t *rapid.T) []byte {
	if rapid.Bool().Draw(t, "null") {
		return nil
	}
	return rapid.SliceOfN(rapid.Byte(), 0, 12).Draw(t, "bytes")
})

// genSubscription draws a subscription of version 0..MaxVersion whose
// fields are those its version carries (others at their defaults).
var genSubscription = rapid.Custom(func(t *rapid.T) wire.Subscription {
	s := wire.Subscription{
		Version:    rapid.Int16Range(0, wire.MaxVersion).Draw(t, "version"),
		Topics:     rapid.SliceOfN(genTopic, 0, 8).Draw(t, "topics"),
		UserData:   genUserData.Draw(t, "userData"),
		Owned:      genTPs.Draw(t, "owned"),
		Generation: rapid.Int32().Draw(t, "generation"),
		Rack:       rapid.StringMatching(`(r[0-9])?`).Draw(t, "rack"),
	}
	return writable(s)
})

var genAssignment = rapid.Custom(func(t *rapid.T) wire.Assignment {
	return wire.Assignment{
		Version:    rapid.Int16Range(0, wire.MaxVersion).Draw(t, "version"),
		Partitions: genTPs.Draw(t, "partitions"),
		UserData:   genUserData.Draw(t, "userData"),
	}
})

// genSticky draws sticky user data; a V0 one has generation -1.
var genSticky = rapid.Custom(func(t *rapid.T) wire.StickyUserData {
	u := wire.StickyUserData{Previous: genTPs.Draw(t, "previous"), Generation: -1}
	if rapid.Bool().Draw(t, "v1") {
		u.Generation = rapid.Int32().Draw(t, "generation")
	}
	return u
})
