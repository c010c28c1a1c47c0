package wire

// Subscription is a ConsumerProtocolSubscription, the metadata a consumer
// sends in JoinGroup for the "consumer" protocol type.
//
//	version 0: Topics, UserData
//	version 1: + OwnedPartitions (KIP-429)
//	version 2: + GenerationId (KIP-792)
//	version 3: + RackId (KIP-881)
type Subscription struct {
	// Version is the version read, or the version to write (0 to
	// MaxVersion). Fields newer than Version are not written, and read as
	// their defaults. A version above MaxVersion is reported as read,
	// although only the MaxVersion fields were decoded; set it to at most
	// MaxVersion before re-encoding.
	Version int16
	// Topics the member subscribes to.
	Topics []string
	// UserData is the assignor's opaque data; nil is null on the wire, which
	// differs from empty.
	UserData []byte
	// Owned is what the member currently owns (version 1+).
	Owned []TopicPartitions
	// Generation is the generation Owned belongs to (version 2+); -1, the
	// wire default, means absent.
	Generation int32
	// Rack is the member's rack id (version 3+); "" is written as null,
	// and both null and "" read as "", which the Java client treats alike
	// (absent).
	Rack string
}

const subscriptionStruct = "ConsumerProtocolSubscription"

// SubscriptionSize returns the exact length of AppendSubscription's output
// for s.
func SubscriptionSize(s *Subscription) int {
	n := 2 + 4
	for _, t := range s.Topics {
		n += 2 + len(t)
	}
	n += nullableBytesSize(s.UserData)
	if s.Version >= 1 {
		n += topicPartitionsSize(s.Owned)
	}
	if s.Version >= 2 {
		n += 4
	}
	if s.Version >= 3 {
		n += nullableStringSize(s.Rack) // "" is written as null: 2 bytes either way
	}
	return n
}

// AppendSubscription appends s, encoded at s.Version, to dst and returns the
// extended buffer.
//
// Topics and Owned are written in the given order. The Java client's writer
// sorts the topics, and sorts owned partitions by (topic, partition) before
// grouping them by topic: callers that want the Java client's bytes must
// pass sorted input.
//
// It panics if s.Version is outside 0..MaxVersion or a string is longer
// than MaxStringLen.
func AppendSubscription(dst []byte, s *Subscription) []byte {
	checkVersion(subscriptionStruct, s.Version)
	dst = grow(dst, SubscriptionSize(s))
	dst = appendInt16(dst, s.Version)
	checkCount(len(s.Topics))
	dst = appendInt32(dst, int32(len(s.Topics)))
	for _, t := range s.Topics {
		dst = appendString(dst, t)
	}
	dst = appendNullableBytes(dst, s.UserData)
	if s.Version >= 1 {
		dst = appendTopicPartitions(dst, s.Owned)
	}
	if s.Version >= 2 {
		dst = appendInt32(dst, s.Generation)
	}
	if s.Version >= 3 {
		dst = appendNullableString(dst, s.Rack)
	}
	return dst
}

// Subscription decodes a ConsumerProtocolSubscription. A version above
// MaxVersion is read with the MaxVersion schema; bytes after the last field
// of the version read are ignored. Fields the version does not have are
// returned as their defaults: Owned nil, Generation -1, Rack "".
func (d *Decoder) Subscription(b []byte) (Subscription, error) {
	r := newReader(b, subscriptionStruct)
	s := Subscription{Generation: -1}
	v, err := r.int16(field("Version"))
	if err != nil {
		return Subscription{}, err
	}
	if v < 0 {
		return Subscription{}, r.fail(0, field("Version"), "negative version %d", v)
	}
	s.Version = v

	n, err := r.arrayLen(field("Topics"), 2)
	if err != nil {
		return Subscription{}, err
	}
	if n > 0 {
		var h hint
		if d != nil {
			h.names = d.last
		}
		if s.Topics, err = d.strings(&r, "Topics", n, &h); err != nil {
			return Subscription{}, err
		}
		if d != nil {
			d.last = s.Topics
		}
	}

	if s.UserData, err = r.nullableBytes(field("UserData")); err != nil {
		return Subscription{}, err
	}
	if v >= 1 {
		h := hint{names: s.Topics}
		if s.Owned, err = d.topicPartitions(&r, "OwnedPartitions", &h); err != nil {
			return Subscription{}, err
		}
	}
	if v >= 2 {
		if s.Generation, err = r.int32(field("GenerationId")); err != nil {
			return Subscription{}, err
		}
	}
	if v >= 3 {
		rack, ok, err := r.nullableString(field("RackId"))
		if err != nil {
			return Subscription{}, err
		}
		if ok {
			s.Rack = d.intern(rack)
		}
	}
	return s, nil
}

// DecodeSubscription decodes a ConsumerProtocolSubscription without
// interning names; see (*Decoder).Subscription.
func DecodeSubscription(b []byte) (Subscription, error) {
	var d *Decoder
	return d.Subscription(b)
}
