package wire

import "encoding/binary"

// Decoder decodes consumer-protocol messages and interns the topic names
// (and rack ids) it reads, so that a leader decoding thousands of
// subscriptions of the same topics allocates each name once, and the
// assignment engine can compare names that are the same string.
//
// The zero value is ready to use. A nil *Decoder also works and decodes
// without interning (the package-level Decode functions use it). A Decoder
// remembers every distinct name it has seen: use one per rebalance, or per
// group, rather than one for the life of the process. It is not safe for
// concurrent use; give each goroutine its own.
//
// Decoded messages alias the input for user data: the UserData slices point
// into b (with their capacity capped, so appending to them copies). Copy
// them if b is reused.
type Decoder struct {
	names map[string]string
	// last is the topic list of the previous subscription. Members of a
	// group usually subscribe to the same topics in the same (sorted)
	// order, so comparing against it finds most names without hashing.
	last []string
}

// Reset forgets the interned names.
func (d *Decoder) Reset() {
	d.names = nil
	d.last = nil
}

// intern returns b as a string, allocating it only the first time the
// Decoder sees those bytes. The lookup m[string(b)] does not allocate.
func (d *Decoder) intern(b []byte) string {
	if d == nil {
		return string(b)
	}
	if s, ok := d.names[string(b)]; ok {
		return s
	}
	if d.names == nil {
		d.names = make(map[string]string)
	}
	s := string(b)
	d.names[s] = s
	return s
}

// hint is a cursor over a sorted list of names expected to contain the names
// about to be read, in order. The Java client sorts both the subscribed
// topics and the owned partitions by topic, so a merge walk against the
// previous subscription's topics (or the current one's, for owned
// partitions) resolves almost every name with one comparison. Unsorted or
// unrelated input is still decoded correctly: the cursor only moves
// forward, and a miss falls back to the intern map.
type hint struct {
	names []string
	i     int
}

func (d *Decoder) name(b []byte, h *hint) string {
	if d == nil {
		return string(b)
	}
	for h.i < len(h.names) {
		n := h.names[h.i]
		if n == string(b) {
			h.i++
			return n
		}
		if n > string(b) {
			break
		}
		h.i++
	}
	return d.intern(b)
}

// topicPartitions reads a []{Topic string, Partitions []int32} array in two
// passes: the first checks the framing and counts the partitions, so that
// the second fills one []TopicPartitions and one []int32 backing array
// (each entry's Partitions is a capped sub-slice of it) instead of
// allocating per topic.
func (d *Decoder) topicPartitions(r *reader, name string, h *hint) ([]TopicPartitions, error) {
	n, err := r.arrayLen(field(name), 2+4)
	if err != nil || n == 0 {
		return nil, err
	}
	start := r.off
	total := 0
	for i := 0; i < n; i++ {
		if _, err := r.string(path{name, i, "Topic"}); err != nil {
			return nil, err
		}
		c, err := r.arrayLen(path{name, i, "Partitions"}, 4)
		if err != nil {
			return nil, err
		}
		r.off += 4 * c
		total += c
	}

	// The framing is valid: read it again without checks.
	b := r.buf[start:r.off]
	tps := make([]TopicPartitions, n)
	var all []int32
	if total > 0 {
		all = make([]int32, total)
	}
	off := 0
	for i := range tps {
		l := int(binary.BigEndian.Uint16(b[off:]))
		off += 2
		tps[i].Topic = d.name(b[off:off+l], h)
		off += l
		c := int(binary.BigEndian.Uint32(b[off:]))
		off += 4
		if c == 0 {
			continue
		}
		ps := all[:c:c]
		all = all[c:]
		src := b[off : off+4*c]
		for j := range ps {
			ps[j] = int32(binary.BigEndian.Uint32(src[4*j:]))
		}
		off += 4 * c
		tps[i].Partitions = ps
	}
	return tps, nil
}
