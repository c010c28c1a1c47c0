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
// A Decoder keeps the last subscription's Topics as a lookup hint, and a
// subscription whose topics are exactly the previous one's gets the same
// Topics slice back (members of a group usually subscribe to the same
// topics: 2,000 members of 500 topics then share one slice instead of
// allocating 8 MB). Treat decoded Topics as read-only.
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

// strings reads n non-nullable strings (the subscription's topics) into a
// new []string, resolving each through the hint and the intern table.
func (d *Decoder) strings(r *reader, name string, n int, h *hint) ([]string, error) {
	if d != nil && len(h.names) == n {
		if end, ok := sameStrings(r.buf, r.off, h.names); ok {
			r.off = end
			h.i = n
			return h.names, nil
		}
	}
	out := make([]string, n)
	buf, off := r.buf, r.off
	for i := range out {
		if len(buf)-off < 2 {
			return nil, r.errShort(off, path{name, i, ""}, 2)
		}
		l := int(int16(binary.BigEndian.Uint16(buf[off:])))
		if l < 0 {
			return nil, r.errNegativeString(off, path{name, i, ""}, l)
		}
		if l > len(buf)-off-2 {
			return nil, r.errOverrun(off, path{name, i, ""}, l, 2)
		}
		out[i] = d.name(buf[off+2:off+2+l], h)
		off += 2 + l
	}
	r.off = off
	return out, nil
}

// topicPartitions reads a []{Topic string, Partitions []int32} array in two
// passes: the first checks the framing and counts the partitions, so that
// the second fills one []TopicPartitions and one []int32 backing array
// (each entry's Partitions is a capped sub-slice of it) instead of
// allocating per topic. Entries with no partitions get nil Partitions.
func (d *Decoder) topicPartitions(r *reader, name string, h *hint) ([]TopicPartitions, error) {
	n, err := r.arrayLen(field(name), 2+4)
	if err != nil || n == 0 {
		return nil, err
	}
	start := r.off
	total, err := r.scanTopicPartitions(name, n)
	if err != nil {
		return nil, err
	}

	// The framing is valid: read it again without checks.
	b := r.buf[start:r.off]
	tps := make([]TopicPartitions, n)
	all := make([]int32, total)
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

// scanTopicPartitions checks the framing of n topic-partition entries from
// r.off, moves r.off past them and returns their total partition count.
// The total is bounded by the input length / 4, so it is safe to allocate.
func (r *reader) scanTopicPartitions(name string, n int) (int, error) {
	buf, off := r.buf, r.off
	total := 0
	for i := 0; i < n; i++ {
		if len(buf)-off < 2 {
			return 0, r.errShort(off, path{name, i, "Topic"}, 2)
		}
		l := int(int16(binary.BigEndian.Uint16(buf[off:])))
		if l < 0 {
			return 0, r.errNegativeString(off, path{name, i, "Topic"}, l)
		}
		if l > len(buf)-off-2 {
			return 0, r.errOverrun(off, path{name, i, "Topic"}, l, 2)
		}
		off += 2 + l
		if len(buf)-off < 4 {
			return 0, r.errShort(off, path{name, i, "Partitions"}, 4)
		}
		c := int(int32(binary.BigEndian.Uint32(buf[off:])))
		if c < 0 {
			return 0, r.errNegativeCount(off, path{name, i, "Partitions"}, c)
		}
		if c > (len(buf)-off-4)/4 {
			return 0, r.errCountOverrun(off, path{name, i, "Partitions"}, c, 4)
		}
		off += 4 + 4*c
		total += c
	}
	r.off = off
	return total, nil
}

// sameStrings reports whether the strings encoded at buf[off:] are exactly
// names, in order, and where they end. Malformed input reports false: the
// caller's full decode then says what is wrong.
func sameStrings(buf []byte, off int, names []string) (int, bool) {
	for _, want := range names {
		if len(buf)-off < 2 {
			return 0, false
		}
		l := int(int16(binary.BigEndian.Uint16(buf[off:])))
		if l != len(want) || l > len(buf)-off-2 || string(buf[off+2:off+2+l]) != want {
			return 0, false
		}
		off += 2 + l
	}
	return off, true
}
