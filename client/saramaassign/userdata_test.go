package saramaassign_test

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"testing"

	"github.com/IBM/sarama"
	"pgregory.net/rapid"

	"github.com/assignd/assignd/client/saramaassign"
	"github.com/assignd/assignd/testbed/shimtest"
)

// TestAssignmentDataMatchesSarama: for every protocol, the adapter's
// assignment user data is what sarama's own strategy of the same name
// writes. sarama writes the sticky topics in Go map order, which varies
// from call to call, so with two or more topics the comparison is on the
// bytes with the per-topic blocks put in name order; with one topic or
// none the bytes are compared as they are.
func TestAssignmentDataMatchesSarama(t *testing.T) {
	for _, tc := range []struct {
		name       string
		topics     map[string][]int32
		generation int32
	}{
		{"nil", nil, 1},
		{"empty", map[string][]int32{}, 7},
		{"one topic", map[string][]int32{"orders": {0, 1, 2}}, 3},
		{"partitions kept in the given order", map[string][]int32{"orders": {5, 0, 3}}, 3},
		{"a topic with no partitions", map[string][]int32{"orders": {}}, 3},
		{"a topic with nil partitions", map[string][]int32{"orders": nil}, 3},
		{"no generation", map[string][]int32{"orders": {1}}, -1},
		{"the largest generation", map[string][]int32{"orders": {1}}, 2147483647},
		{"several topics", map[string][]int32{"orders": {0, 1}, "audit": {2}, "payments": {3, 4, 5}, "z": {}}, 12},
		{"an empty topic name", map[string][]int32{"": {0}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, name := range []string{"range", "roundrobin", "sticky"} {
				s, err := saramaassign.New(nil, name)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.AssignmentData("m1", tc.topics, tc.generation)
				if err != nil {
					t.Fatal(err)
				}
				want, err := nativeStrategy(name).AssignmentData("m1", tc.topics, tc.generation)
				if err != nil {
					t.Fatal(err)
				}
				if len(tc.topics) <= 1 && !bytes.Equal(got, want) {
					t.Errorf("%s: %x, sarama %x", name, got, want)
				}
				if !bytes.Equal(canonical(t, got), canonical(t, want)) {
					t.Errorf("%s: %x, sarama %x (blocks in name order)", name, got, want)
				}
				if !bytes.Equal(got, canonical(t, got)) {
					t.Errorf("%s: %x: topics not in name order", name, got)
				}
			}
		})
	}
}

func TestAssignmentDataMatchesSaramaOnRandomInput(t *testing.T) {
	native, adapter := sarama.NewBalanceStrategySticky(), saramaassign.Sticky(nil)
	rapid.Check(t, func(rt *rapid.T) {
		topics := rapid.MapOfN(rapid.StringMatching(`[a-z0-9._-]{0,12}`),
			rapid.SliceOfN(rapid.Int32Range(-1, 1000), 0, 20), 0, 6).Draw(rt, "topics")
		gen := rapid.Int32().Draw(rt, "generation")
		got, err := adapter.AssignmentData("m", topics, gen)
		if err != nil {
			rt.Fatal(err)
		}
		want, err := native.AssignmentData("m", topics, gen)
		if err != nil {
			rt.Fatal(err)
		}
		if !bytes.Equal(got, canonical(rt, want)) {
			rt.Fatalf("%x, sarama %x", got, want)
		}
	})
}

// A topic name the protocol cannot carry is an error for sarama's encoder
// and for the adapter alike.
func TestAssignmentDataRejectsOverlongTopic(t *testing.T) {
	topics := map[string][]int32{strings.Repeat("t", 32768): {0}}
	if _, err := saramaassign.Sticky(nil).AssignmentData("m", topics, 1); err == nil {
		t.Error("the adapter encoded a 32768-byte topic name")
	}
	if _, err := sarama.NewBalanceStrategySticky().AssignmentData("m", topics, 1); err == nil {
		t.Error("sarama encoded a 32768-byte topic name")
	}
	if _, err := saramaassign.Sticky(nil).AssignmentData("m", map[string][]int32{strings.Repeat("t", 32767): {0}}, 1); err != nil {
		t.Errorf("a 32767-byte topic name: %v", err)
	}
}

// canonical returns StickyAssignorUserData V1 with its per-topic blocks
// sorted by topic name, read straight from the bytes (not with the codec
// under test). nil stays nil.
func canonical(t shimtest.Fataler, b []byte) []byte {
	t.Helper()
	if b == nil {
		return nil
	}
	fail := func() { t.Fatalf("not StickyAssignorUserData V1: %x", b) }
	if len(b) < 8 {
		fail()
	}
	n := int(int32(binary.BigEndian.Uint32(b)))
	rest := b[4:]
	type block struct {
		topic string
		raw   []byte
	}
	blocks := make([]block, 0, max(n, 0))
	for range n {
		if len(rest) < 2 {
			fail()
		}
		l := int(binary.BigEndian.Uint16(rest))
		if len(rest) < 2+l+4 {
			fail()
		}
		topic := string(rest[2 : 2+l])
		m := int(int32(binary.BigEndian.Uint32(rest[2+l:])))
		size := 2 + l + 4 + 4*max(m, 0)
		if len(rest) < size {
			fail()
		}
		blocks = append(blocks, block{topic, rest[:size]})
		rest = rest[size:]
	}
	if len(rest) != 4 {
		fail()
	}
	slices.SortStableFunc(blocks, func(x, y block) int { return strings.Compare(x.topic, y.topic) })
	out := append([]byte(nil), b[:4]...)
	for _, bl := range blocks {
		out = append(out, bl.raw...)
	}
	return append(out, rest...)
}
