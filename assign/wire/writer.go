package wire

import (
	"encoding/binary"
	"fmt"
	"math"
)

// MaxVersion is the highest ConsumerProtocolSubscription and
// ConsumerProtocolAssignment version this package knows. Encoders write
// versions 0 to MaxVersion; decoders read higher versions with the
// MaxVersion schema.
const MaxVersion int16 = 3

// MaxStringLen is the longest string (topic name, rack id) the protocol can
// carry: its length is an int16. Kafka itself limits topic names to 249
// bytes.
const MaxStringLen = math.MaxInt16

// The encoders panic on input the protocol cannot represent (a version
// outside 0..MaxVersion, a string longer than MaxStringLen): writing it
// anyway would produce bytes every reader rejects or misreads, and such
// input is a bug in the caller, not a condition to handle at run time.
func checkVersion(msg string, v int16) {
	if v < 0 || v > MaxVersion {
		panic(fmt.Sprintf("wire: %s version %d outside 0..%d", msg, v, MaxVersion))
	}
}

func checkString(s string) {
	if len(s) > MaxStringLen {
		panic(fmt.Sprintf("wire: string of %d bytes exceeds the protocol limit of %d", len(s), MaxStringLen))
	}
}

func checkCount(n int) {
	if n > math.MaxInt32 {
		panic(fmt.Sprintf("wire: %d elements exceed the protocol limit of %d", n, math.MaxInt32))
	}
}

// grow makes room for n more bytes, so that an Append call allocates at
// most once (slices.Grow allocates twice under the race detector).
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	out := make([]byte, len(dst), len(dst)+n)
	copy(out, dst)
	return out
}

func appendInt16(dst []byte, v int16) []byte {
	return binary.BigEndian.AppendUint16(dst, uint16(v))
}

func appendInt32(dst []byte, v int32) []byte {
	return binary.BigEndian.AppendUint32(dst, uint32(v))
}

func appendString(dst []byte, s string) []byte {
	checkString(s)
	dst = appendInt16(dst, int16(len(s)))
	return append(dst, s...)
}

// appendNullableString writes "" as null, as the Java client writes an
// absent rack id.
func appendNullableString(dst []byte, s string) []byte {
	if s == "" {
		return appendInt16(dst, -1)
	}
	return appendString(dst, s)
}

func appendNullableBytes(dst []byte, b []byte) []byte {
	if b == nil {
		return appendInt32(dst, -1)
	}
	checkCount(len(b))
	dst = appendInt32(dst, int32(len(b)))
	return append(dst, b...)
}

func nullableStringSize(s string) int { return 2 + len(s) }

func nullableBytesSize(b []byte) int { return 4 + len(b) }

// appendTopicPartitions writes the []{Topic string, Partitions []int32}
// array shared by owned partitions, assigned partitions and the sticky user
// data, in the given order.
func appendTopicPartitions(dst []byte, tps []TopicPartitions) []byte {
	checkCount(len(tps))
	dst = appendInt32(dst, int32(len(tps)))
	for i := range tps {
		dst = appendString(dst, tps[i].Topic)
		dst = appendInt32s(dst, tps[i].Partitions)
	}
	return dst
}

// appendInt32s writes an int32 array: the count, then each element. It
// extends dst once and fills it in place rather than appending element by
// element, which matters for assignments of hundreds of partitions.
func appendInt32s(dst []byte, ps []int32) []byte {
	checkCount(len(ps))
	dst = appendInt32(dst, int32(len(ps)))
	n := len(dst)
	dst = grow(dst, 4*len(ps))[:n+4*len(ps)]
	out := dst[n:]
	for i, p := range ps {
		binary.BigEndian.PutUint32(out[4*i:], uint32(p))
	}
	return dst
}

func topicPartitionsSize(tps []TopicPartitions) int {
	n := 4
	for i := range tps {
		n += 2 + len(tps[i].Topic) + 4 + 4*len(tps[i].Partitions)
	}
	return n
}
