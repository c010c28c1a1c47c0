package assign

import (
	"slices"
	"unicode/utf8"
)

// memberInfoOrder returns the indices of members (which Run keeps sorted by
// member id in Go byte order) in the order of the Java client's
// MemberInfo.compareTo, the member order of range and roundrobin (KIP-345):
// static members first, ordered by group.instance.id, then dynamic members,
// ordered by member id, every comparison in UTF-16 code units as Java's
// String.compareTo does.
//
// Java sorts with a stable sort over HashMap order, so two members with the
// same instance id come out in an unspecified order there; here they are
// ordered by member id, which keeps the result deterministic.
func memberInfoOrder(members []*Member, stop *stopper) []int32 {
	ord := make([]int32, len(members))
	for i := range ord {
		ord[i] = int32(i)
	}
	step := 0 // comparisons, for polling
	less := func(a, b int32) int {
		step = stop.over(step, 1)
		return compareMemberInfo(members[a], members[b])
	}
	// The common case, no static members and ids whose byte order agrees
	// with UTF-16 order, is already sorted: one linear check instead of a
	// sort.
	if !slices.IsSortedFunc(ord, less) {
		slices.SortFunc(ord, less)
	}
	return ord
}

// compareMemberInfo orders two members as MemberInfo.compareTo does, with
// member id as the tie-breaker between equal instance ids.
func compareMemberInfo(a, b *Member) int {
	switch {
	case a.InstanceID != "" && b.InstanceID != "":
		if c := compareUTF16(a.InstanceID, b.InstanceID); c != 0 {
			return c
		}
	case a.InstanceID != "":
		return -1
	case b.InstanceID != "":
		return 1
	}
	return compareUTF16(a.ID, b.ID)
}

// compareUTF16 compares a and b as Java's String.compareTo compares the
// UTF-16 forms of the same text: lexicographically by code unit, a proper
// prefix first. It differs from Go's byte order in one place: a code point
// above U+FFFF is a surrogate pair (0xD800-0xDFFF), so it sorts before
// U+E000-U+FFFF in Java, while its UTF-8 form sorts after them in Go.
//
// Invalid UTF-8 is compared as Go decodes it, each bad byte as U+FFFD. The
// Java client never sends such ids (it encodes strings as valid UTF-8), so
// the difference from Java's decoder, which may fold a bad sequence into a
// single U+FFFD, does not arise in practice.
func compareUTF16(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		// ASCII bytes are whole code points and single code units.
		if ca, cb := a[i], b[j]; ca < utf8.RuneSelf && cb < utf8.RuneSelf {
			if ca != cb {
				return cmpInt(int(ca), int(cb))
			}
			i++
			j++
			continue
		}
		ra, wa := utf8.DecodeRuneInString(a[i:])
		rb, wb := utf8.DecodeRuneInString(b[j:])
		if ra != rb {
			return cmpInt(utf16Key(ra), utf16Key(rb))
		}
		i += wa
		j += wb
	}
	return cmpInt(len(a)-i, len(b)-j)
}

// utf16Key maps a code point to a number that orders code points as their
// UTF-16 encodings compare when they differ: the BMP below the surrogate
// range keeps its value, supplementary code points (encoded with a leading
// surrogate 0xD800-0xDBFF) follow in code-point order, and U+E000-U+FFFF
// come last.
func utf16Key(r rune) int {
	switch {
	case r < 0xD800:
		return int(r)
	case r >= 0x10000:
		return 0xD800 + int(r-0x10000)
	default:
		return int(r) + 0x110000
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// subscriberRanks returns, per topic, the ranks (positions in ord) of the
// topic's subscribers, ascending: the topic's consumers in MemberInfo order.
// When ord is the identity, ranks are member indices and st.subscribers is
// returned as is.
func subscriberRanks(st *state, ord []int32) [][]int32 {
	identity := true
	for r, m := range ord {
		if int32(r) != m {
			identity = false
			break
		}
	}
	if identity {
		return st.subscribers
	}
	out := make([][]int32, len(st.topics))
	total := 0
	for _, s := range st.subscribers {
		total += len(s)
	}
	flat := make([]int32, total)
	off := 0
	for t, s := range st.subscribers {
		out[t] = flat[off : off : off+len(s)]
		off += len(s)
	}
	step := 0
	for r, m := range ord {
		step = st.stop.over(step, len(st.subs[m]))
		for _, t := range st.subs[m] {
			out[t] = append(out[t], int32(r))
		}
	}
	return out
}
