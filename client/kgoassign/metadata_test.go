package kgoassign_test

import (
	"bytes"
	"maps"
	"slices"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/client/kgoassign"
)

// pairs are each shim balancer beside franz-go's native balancer of the
// same protocol name.
func pairs() []struct {
	shim   *kgoassign.Balancer
	native kgo.GroupBalancer
} {
	return []struct {
		shim   *kgoassign.Balancer
		native kgo.GroupBalancer
	}{
		{kgoassign.CooperativeSticky(nil), kgo.CooperativeStickyBalancer()},
		{kgoassign.Sticky(nil), kgo.StickyBalancer()},
		{kgoassign.Range(nil), kgo.RangeBalancer()},
		{kgoassign.RoundRobin(nil), kgo.RoundRobinBalancer()},
	}
}

func TestProtocolNamesAndCooperation(t *testing.T) {
	for _, p := range pairs() {
		if p.shim.ProtocolName() != p.native.ProtocolName() || p.shim.IsCooperative() != p.native.IsCooperative() {
			t.Errorf("shim %s cooperative=%v, native %s cooperative=%v", p.shim.ProtocolName(), p.shim.IsCooperative(),
				p.native.ProtocolName(), p.native.IsCooperative())
		}
	}
	if _, err := kgoassign.New(nil, "cooperative-range"); err == nil {
		t.Error("New accepted an unknown protocol name")
	}
}

func TestJoinGroupMetadataMatchesNative(t *testing.T) {
	for _, tc := range []struct {
		name       string
		topics     []string
		current    map[string][]int32
		generation int32
	}{
		{"first join", []string{"a", "b"}, nil, -1},
		{"no topics", nil, nil, -1},
		{"owns partitions", []string{"a", "b", "c"}, map[string][]int32{"c": {1, 4}, "a": {0, 2, 3}}, 7},
		{"owned topic no longer subscribed", []string{"a"}, map[string][]int32{"z": {0}}, 2},
		{"empty partition list", []string{"a"}, map[string][]int32{"a": {}}, 0},
		{"generation reset", []string{"a"}, map[string][]int32{"a": {5}}, -1},
	} {
		for _, p := range pairs() {
			got := p.shim.JoinGroupMetadata(slices.Clone(tc.topics), cloneMap(tc.current), tc.generation)
			want := p.native.JoinGroupMetadata(slices.Clone(tc.topics), cloneMap(tc.current), tc.generation)
			if !bytes.Equal(got, want) {
				t.Errorf("%s/%s:\n shim   %x\n native %x", tc.name, p.shim.ProtocolName(), got, want)
			}
		}
	}
}

// TestJoinGroupMetadataMatchesNativeRandom draws topic interests and
// current assignments as kgo hands them to a balancer (topics sorted,
// partitions sorted) and compares the bytes with franz-go's.
func TestJoinGroupMetadataMatchesNativeRandom(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		names := rapid.SliceOfDistinct(rapid.StringMatching(`[a-z][a-z0-9._-]{0,8}`), func(s string) string { return s }).Draw(t, "topics")
		slices.Sort(names)
		current := map[string][]int32{}
		for _, n := range rapid.SliceOfDistinct(rapid.StringMatching(`[a-z]{1,4}`), func(s string) string { return s }).Draw(t, "owned topics") {
			ps := rapid.SliceOfDistinct(rapid.Int32Range(0, 500), func(p int32) int32 { return p }).Draw(t, "partitions")
			slices.Sort(ps)
			current[n] = ps
		}
		gen := rapid.Int32Range(-1, 1<<20).Draw(t, "generation")
		for _, p := range pairs() {
			got := p.shim.JoinGroupMetadata(slices.Clone(names), cloneMap(current), gen)
			want := p.native.JoinGroupMetadata(slices.Clone(names), cloneMap(current), gen)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s:\n shim   %x\n native %x", p.shim.ProtocolName(), got, want)
			}
		}
	})
}

// TestRackInjectionKeepsMetadataReadable mirrors what kgo does with
// kgo.Rack after calling JoinGroupMetadata: it reads the bytes back,
// sets the rack and re-encodes. The shim's bytes must survive that.
func TestRackInjectionKeepsMetadataReadable(t *testing.T) {
	for _, p := range pairs() {
		raw := p.shim.JoinGroupMetadata([]string{"a"}, map[string][]int32{"a": {0, 1}}, 3)
		var meta kmsg.ConsumerMemberMetadata
		if err := meta.ReadFrom(raw); err != nil {
			t.Fatalf("%s: kmsg cannot read the shim's metadata: %v", p.shim.ProtocolName(), err)
		}
		if meta.Rack != nil {
			t.Fatalf("%s: rack %q already set; kgo would not inject its own", p.shim.ProtocolName(), *meta.Rack)
		}
		rack := "az1"
		meta.Rack = &rack
		sub, err := wire.DecodeSubscription(meta.AppendTo(nil))
		if err != nil || sub.Rack != "az1" || sub.Generation != 3 {
			t.Fatalf("%s: after injection: %+v, %v", p.shim.ProtocolName(), sub, err)
		}
	}
}

func TestParseSyncAssignmentMatchesNative(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var a kmsg.ConsumerMemberAssignment
		a.Version = rapid.Int16Range(0, 3).Draw(t, "version")
		for _, n := range rapid.SliceOfDistinct(rapid.StringMatching(`[a-z]{1,6}`), func(s string) string { return s }).Draw(t, "topics") {
			at := kmsg.NewConsumerMemberAssignmentTopic()
			at.Topic = n
			at.Partitions = rapid.SliceOf(rapid.Int32Range(0, 100)).Draw(t, "partitions")
			a.Topics = append(a.Topics, at)
		}
		if rapid.Bool().Draw(t, "user data") {
			a.UserData = rapid.SliceOf(rapid.Byte()).Draw(t, "data")
		}
		raw := a.AppendTo(nil)
		want, err := kgo.ParseConsumerSyncAssignment(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := kgoassign.CooperativeSticky(nil).ParseSyncAssignment(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("shim %v, native %v", got, want)
		}
	})
}

// FuzzParseSyncAssignment feeds arbitrary bytes to the shim's decoder:
// it must never panic, and whenever franz-go reads the bytes and they name
// each topic once, the shim must read the same thing.
func FuzzParseSyncAssignment(f *testing.F) {
	f.Add([]byte{0, 3, 0, 0, 0, 1, 0, 1, 'a', 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 255, 255, 255, 255})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{})
	f.Add([]byte{0, 1, 255, 255, 255, 255})
	b := kgoassign.Range(nil)
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := b.ParseSyncAssignment(raw)
		want, nerr := kgo.ParseConsumerSyncAssignment(slices.Clone(raw))
		if err != nil || nerr != nil {
			return
		}
		var a kmsg.ConsumerMemberAssignment
		if a.ReadFrom(raw) != nil {
			return
		}
		seen := map[string]bool{}
		for _, tp := range a.Topics {
			if seen[tp.Topic] {
				return // franz-go keeps the last list, the shim merges
			}
			seen[tp.Topic] = true
		}
		if !maps.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("shim %v, native %v", got, want)
		}
	})
}

func cloneMap(m map[string][]int32) map[string][]int32 {
	if m == nil {
		return nil
	}
	out := make(map[string][]int32, len(m))
	for k, v := range m {
		out[k] = slices.Clone(v)
	}
	return out
}
