package wire_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/assignd/assignd/assign/wire"
)

// bigSubscription is a member of the leader-path benchmark group: v3,
// topics sorted as the Java client writes them, cooperative user data, and
// perTopic owned partitions of each topic.
func bigSubscription(topics, perTopic int, member int) wire.Subscription {
	s := wire.Subscription{
		Version:    3,
		Topics:     make([]string, topics),
		UserData:   wire.AppendCooperativeUserData(nil, 1),
		Owned:      make([]wire.TopicPartitions, topics),
		Generation: 1,
		Rack:       fmt.Sprintf("rack-%d", member%3),
	}
	for i := range s.Topics {
		s.Topics[i] = fmt.Sprintf("topic-%04d", i)
		ps := make([]int32, perTopic)
		for j := range ps {
			ps[j] = int32(member*perTopic + j)
		}
		s.Owned[i] = wire.TopicPartitions{Topic: s.Topics[i], Partitions: ps}
	}
	return s
}

func sameString(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }

// TestDecoderInternsTopicNames decodes 2,000 subscriptions of the same 500
// topics, as a leader does: every member's names must be the same strings,
// and the whole decode must allocate each name once plus a fixed number of
// slices per member.
func TestDecoderInternsTopicNames(t *testing.T) {
	const members, topics = 2000, 500
	sorted := bigSubscription(topics, 1, 0)
	sorted.Owned = nil // keep the test fast; owned names are checked below
	inSorted := wire.AppendSubscription(nil, &sorted)
	// A member listing the topics in another order takes the map path.
	shuffled := sorted
	shuffled.Topics = append([]string(nil), sorted.Topics...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled.Topics), func(i, j int) {
		shuffled.Topics[i], shuffled.Topics[j] = shuffled.Topics[j], shuffled.Topics[i]
	})
	inShuffled := wire.AppendSubscription(nil, &shuffled)

	var d wire.Decoder
	byName := map[string]string{}
	subs := make([]wire.Subscription, members)
	allocs := testing.AllocsPerRun(1, func() {
		d = wire.Decoder{}
		for i := range subs {
			in := inSorted
			if i%7 == 3 {
				in = inShuffled
			}
			var err error
			if subs[i], err = d.Subscription(in); err != nil {
				t.Fatal(err)
			}
		}
	})
	for i, s := range subs {
		for _, name := range s.Topics {
			first, ok := byName[name]
			if !ok {
				byName[name] = name
				continue
			}
			if !sameString(first, name) {
				t.Fatalf("member %d: topic %q is a separate copy", i, name)
			}
		}
	}
	if len(byName) != topics {
		t.Fatalf("decoded %d distinct topics, want %d", len(byName), topics)
	}
	// Per member: the []string of topics. Once: each name, each rack, and
	// the intern map's own growth.
	if limit := float64(members + topics + 3 + 64); allocs > limit {
		t.Fatalf("decoding %d subscriptions of %d topics allocated %.0f times, want at most %.0f", members, topics, allocs, limit)
	}
}

func TestOwnedTopicsShareSubscribedNames(t *testing.T) {
	var d wire.Decoder
	for member := range 3 {
		s := bigSubscription(50, 2, member)
		got, err := d.Subscription(wire.AppendSubscription(nil, &s))
		if err != nil {
			t.Fatal(err)
		}
		for i := range got.Owned {
			if !sameString(got.Owned[i].Topic, got.Topics[i]) {
				t.Fatalf("member %d: owned topic %q is not the interned name", member, got.Owned[i].Topic)
			}
		}
	}
}

func TestDecodeAllocations(t *testing.T) {
	s := bigSubscription(500, 2, 1)
	in := wire.AppendSubscription(nil, &s)
	var d wire.Decoder
	if _, err := d.Subscription(in); err != nil { // warm the intern table
		t.Fatal(err)
	}
	// Owned entries and one backing array for all partitions; the topic
	// list is the previous subscription's, shared.
	if n := testing.AllocsPerRun(20, func() { _, _ = d.Subscription(in) }); n != 2 {
		t.Errorf("Decoder.Subscription allocated %.0f times, want 2", n)
	}
	first, _ := d.Subscription(in)
	second, _ := d.Subscription(in)
	if &first.Topics[0] != &second.Topics[0] {
		t.Error("identical topic lists are not shared")
	}
	other := s
	other.Topics = append([]string{"a-new-topic"}, s.Topics[1:]...)
	third, err := d.Subscription(wire.AppendSubscription(nil, &other))
	if err != nil {
		t.Fatal(err)
	}
	if &third.Topics[0] == &second.Topics[0] || third.Topics[0] != "a-new-topic" {
		t.Error("a different topic list must get its own slice")
	}

	a := wire.AppendAssignment(nil, 3, s.Owned, nil)
	// Entries, one backing array.
	if n := testing.AllocsPerRun(20, func() { _, _ = d.Assignment(a) }); n != 2 {
		t.Errorf("Decoder.Assignment allocated %.0f times, want 2", n)
	}
}

func TestEncodeAllocations(t *testing.T) {
	s := bigSubscription(500, 1, 1)
	if n := testing.AllocsPerRun(20, func() { _ = wire.AppendSubscription(nil, &s) }); n != 1 {
		t.Errorf("AppendSubscription(nil) allocated %.0f times, want 1", n)
	}
	buf := make([]byte, 0, wire.AssignmentSize(s.Owned, nil))
	if n := testing.AllocsPerRun(20, func() { _ = wire.AppendAssignment(buf[:0], 3, s.Owned, nil) }); n != 0 {
		t.Errorf("AppendAssignment into a large enough buffer allocated %.0f times, want 0", n)
	}
	if n := testing.AllocsPerRun(20, func() { _ = wire.AppendAssignment(nil, 3, s.Owned, nil) }); n != 1 {
		t.Errorf("AppendAssignment(nil) allocated %.0f times, want 1", n)
	}
}
