package wire_test

import (
	"bytes"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign/wire"
)

// Cross-checks against franz-go's kmsg, the Go peer: for the same message,
// both encoders must give the same bytes and each decoder must read the
// other's bytes to the same message.

func toKmsgSub(s wire.Subscription) kmsg.ConsumerMemberMetadata {
	m := kmsg.NewConsumerMemberMetadata()
	m.Version = s.Version
	m.Topics = s.Topics
	m.UserData = s.UserData
	for _, tp := range s.Owned {
		m.OwnedPartitions = append(m.OwnedPartitions, kmsg.ConsumerMemberMetadataOwnedPartition{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	m.Generation = s.Generation
	if s.Rack != "" {
		m.Rack = kmsg.StringPtr(s.Rack)
	}
	return m
}

func fromKmsgSub(m kmsg.ConsumerMemberMetadata) wire.Subscription {
	s := wire.Subscription{Version: m.Version, Topics: m.Topics, UserData: m.UserData, Generation: m.Generation}
	for _, op := range m.OwnedPartitions {
		s.Owned = append(s.Owned, wire.TopicPartitions{Topic: op.Topic, Partitions: op.Partitions})
	}
	if m.Rack != nil {
		s.Rack = *m.Rack
	}
	return s
}

func toKmsgAssignment(a wire.Assignment) kmsg.ConsumerMemberAssignment {
	m := kmsg.ConsumerMemberAssignment{Version: a.Version, UserData: a.UserData}
	for _, tp := range a.Partitions {
		m.Topics = append(m.Topics, kmsg.ConsumerMemberAssignmentTopic{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	return m
}

func fromKmsgAssignment(m kmsg.ConsumerMemberAssignment) wire.Assignment {
	a := wire.Assignment{Version: m.Version, UserData: m.UserData}
	for _, tp := range m.Topics {
		a.Partitions = append(a.Partitions, wire.TopicPartitions{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	return a
}

func toKmsgSticky(u wire.StickyUserData) kmsg.StickyMemberMetadata {
	m := kmsg.NewStickyMemberMetadata()
	m.Generation = u.Generation
	for _, tp := range u.Previous {
		m.CurrentAssignment = append(m.CurrentAssignment, kmsg.StickyMemberMetadataCurrentAssignment{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	return m
}

func fromKmsgSticky(m kmsg.StickyMemberMetadata) wire.StickyUserData {
	u := wire.StickyUserData{Generation: m.Generation}
	for _, tp := range m.CurrentAssignment {
		u.Previous = append(u.Previous, wire.TopicPartitions{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	return u
}

func checkSubscriptionAgainstKmsg(t tester, s wire.Subscription) {
	t.Helper()
	ours := wire.AppendSubscription(nil, &s)
	km := toKmsgSub(s)
	theirs := km.AppendTo(nil)
	if !bytes.Equal(ours, theirs) {
		t.Fatalf("encoding of %+v:\n ours %x\nkmsg %x", s, ours, theirs)
	}
	var back kmsg.ConsumerMemberMetadata
	if err := back.ReadFrom(ours); err != nil {
		t.Fatalf("kmsg cannot read our %x: %v", ours, err)
	}
	if got := fromKmsgSub(back); !equalSub(got, s) {
		t.Fatalf("kmsg read our bytes as %+v, want %+v", got, s)
	}
}

func checkAssignmentAgainstKmsg(t tester, a wire.Assignment) {
	t.Helper()
	ours := wire.AppendAssignment(nil, a.Version, a.Partitions, a.UserData)
	km := toKmsgAssignment(a)
	theirs := km.AppendTo(nil)
	if !bytes.Equal(ours, theirs) {
		t.Fatalf("encoding of %+v:\n ours %x\nkmsg %x", a, ours, theirs)
	}
	var back kmsg.ConsumerMemberAssignment
	if err := back.ReadFrom(ours); err != nil {
		t.Fatalf("kmsg cannot read our %x: %v", ours, err)
	}
	if got := fromKmsgAssignment(back); !equalAssignment(got, a) {
		t.Fatalf("kmsg read our bytes as %+v, want %+v", got, a)
	}
}

// kmsg writes V1 exactly when the generation is not -1.
func checkStickyAgainstKmsg(t tester, u wire.StickyUserData) {
	t.Helper()
	ours := wire.AppendStickyUserData(nil, u.Previous, u.Generation, u.Generation != -1)
	km := toKmsgSticky(u)
	theirs := km.AppendTo(nil)
	if !bytes.Equal(ours, theirs) {
		t.Fatalf("encoding of %+v:\n ours %x\nkmsg %x", u, ours, theirs)
	}
	var back kmsg.StickyMemberMetadata
	if err := back.ReadFrom(ours); err != nil {
		t.Fatalf("kmsg cannot read our %x: %v", ours, err)
	}
	if got := fromKmsgSticky(back); !equalSticky(got, u) {
		t.Fatalf("kmsg read our bytes as %+v, want %+v", got, u)
	}
}

func TestFixturesMatchKmsg(t *testing.T) {
	for _, tc := range subscriptionFixtures {
		t.Run("subscription/"+tc.name, func(t *testing.T) {
			// kmsg reads every fixture the same way, forward-compatible
			// versions and trailing bytes included.
			var km kmsg.ConsumerMemberMetadata
			if err := km.ReadFrom(tc.in); err != nil {
				t.Fatalf("kmsg ReadFrom: %v", err)
			}
			if got := fromKmsgSub(km); !equalSub(got, tc.want) {
				t.Fatalf("kmsg read %+v, want %+v", got, tc.want)
			}
			if tc.canonical {
				checkSubscriptionAgainstKmsg(t, tc.want)
			}
		})
	}
	for _, tc := range assignmentFixtures {
		t.Run("assignment/"+tc.name, func(t *testing.T) {
			var km kmsg.ConsumerMemberAssignment
			if err := km.ReadFrom(tc.in); err != nil {
				t.Fatalf("kmsg ReadFrom: %v", err)
			}
			if got := fromKmsgAssignment(km); !equalAssignment(got, tc.want) {
				t.Fatalf("kmsg read %+v, want %+v", got, tc.want)
			}
			if tc.canonical {
				checkAssignmentAgainstKmsg(t, tc.want)
			}
		})
	}
	for _, tc := range stickyFixtures {
		if !tc.canonical {
			// kmsg differs on the non-canonical ones (it rejects 1-3
			// stray bytes, where the Java client falls back to V0).
			continue
		}
		t.Run("sticky/"+tc.name, func(t *testing.T) {
			checkStickyAgainstKmsg(t, tc.want)
		})
	}
}

func TestRandomMessagesMatchKmsg(t *testing.T) {
	t.Run("subscription", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { checkSubscriptionAgainstKmsg(t, genSubscription.Draw(t, "s")) })
	})
	t.Run("assignment", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { checkAssignmentAgainstKmsg(t, genAssignment.Draw(t, "a")) })
	})
	t.Run("sticky", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) { checkStickyAgainstKmsg(t, genSticky.Draw(t, "u")) })
	})
}

// TestKmsgEncodedReadByUs decodes what kmsg writes, including subscription
// versions above 3 (kmsg writes them with the v3 schema).
func TestKmsgEncodedReadByUs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSubscription.Draw(t, "s")
		km := toKmsgSub(s)
		if s.Version == wire.MaxVersion && rapid.Bool().Draw(t, "future") {
			km.Version = rapid.Int16Range(4, 1<<15-1).Draw(t, "version")
		}
		got, err := wire.DecodeSubscription(km.AppendTo(nil))
		if err != nil {
			t.Fatalf("DecodeSubscription: %v", err)
		}
		want := s
		want.Version = km.Version
		if !equalSub(got, want) {
			t.Fatalf("read kmsg's bytes as %+v, want %+v", got, want)
		}
	})
}
