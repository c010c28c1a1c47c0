package request

import (
	"bytes"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// shape follows, for [UnmarshalCanonical], whether a message's records lie
// as proto.Marshal lays them out (in field order, the unknown fields
// last; AssignRequest and Member have neither maps nor oneofs, so the
// deterministic marshaling is that one). The records read here, of
// fields lo to hi, must form one block, in field order, with tags and
// lengths of the fewest bytes, after the known fields numbered below lo
// (all of them below lo are known) and before every other; runs are the
// other records, which [shape.matches] compares with a marshaling of the
// message without the fields read here.
type shape struct {
	lo, hi protowire.Number
	ok     bool
	block  int // 0 before the block of records read here, 1 in it, 2 after
	last   protowire.Number
	runs   [][]byte
	split  int // runs before the block; -1: no block
}

// other notes a record handed to proto.Unmarshal.
func (sh *shape) other(num protowire.Number) {
	switch {
	case num >= sh.lo && num <= sh.hi:
		sh.ok = false // a field read here, in a wire type not read here
	case num > sh.hi:
		sh.block = 2
	case sh.block != 0:
		sh.ok = false // below lo, after the block
	}
}

// mine notes a record read here; minimal says its tag and length take
// the fewest bytes.
func (sh *shape) mine(num protowire.Number, minimal bool) {
	if !minimal || sh.block == 2 || num < sh.last {
		sh.ok = false
	}
	if sh.block == 0 {
		sh.split = len(sh.runs)
	}
	sh.block, sh.last = 1, num
}

// matches finishes the check of m, decoded with sh: rest, m's marshaling
// without the fields read here, is the runs before the block (m's known
// fields below lo, which proto.Marshal writes first) and then those after
// it. A record of a field below lo in a wire type not its own is an
// unknown field, which proto.Marshal writes last: m has none numbered up
// to hi, so that the known fields below lo are all of rest's records
// below lo.
func (sh *shape) matches(m proto.Message, rest []byte) bool {
	if !sh.ok || lowest(m.ProtoReflect().GetUnknown()) <= sh.hi {
		return false
	}
	if sh.split < 0 {
		return concatEqual(sh.runs, rest)
	}
	below := 0
	for below < len(rest) {
		num, _, n := protowire.ConsumeField(rest[below:])
		if n < 0 || num >= sh.lo {
			break
		}
		below += n
	}
	return concatEqual(sh.runs[:sh.split], rest[:below]) && concatEqual(sh.runs[sh.split:], rest[below:])
}

// lowest is the lowest field number of the records b (b is valid: a
// message's unknown fields), or the largest number when none.
func lowest(b []byte) protowire.Number {
	low := protowire.Number(protowire.MaxValidNumber)
	for len(b) > 0 {
		num, _, n := protowire.ConsumeField(b)
		if n < 0 {
			return 0
		}
		low, b = min(low, num), b[n:]
	}
	return low
}

// track is sh when UnmarshalCanonical checks, and the request is
// canonical so far; nil otherwise.
func (u *unmarshaler) track(sh *shape) *shape {
	if !u.check || !u.reqShape.ok {
		return nil
	}
	return sh
}

// canonicalInt32 says whether the varint p, of n bytes, is how protobuf
// writes an int32: the fewest bytes of its 64-bit sign extension.
func canonicalInt32(p uint64, n int) bool {
	return n == protowire.SizeVarint(p) && p == uint64(int64(int32(p)))
}

// canonicalMember finishes m's check: its other records are what
// proto.Marshal writes of m without its topics and owned partitions.
func (u *unmarshaler) canonicalMember(m *assigndv1.Member) bool {
	if !u.memberShape.ok {
		return false
	}
	topics, owned := m.Topics, m.OwnedPartitions
	m.Topics, m.OwnedPartitions = nil, nil
	var err error
	u.scratch, err = proto.MarshalOptions{Deterministic: true}.MarshalAppend(u.scratch[:0], m)
	m.Topics, m.OwnedPartitions = topics, owned
	return err == nil && u.memberShape.matches(m, u.scratch)
}

// canonicalRequest finishes the request's check, as canonicalMember.
func (u *unmarshaler) canonicalRequest(req *assigndv1.AssignRequest) bool {
	if !u.reqShape.ok {
		return false
	}
	members := req.Members
	req.Members = nil
	rest, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	req.Members = members
	return err == nil && u.reqShape.matches(req, rest)
}

// concatEqual says whether the runs, one after another, are b.
func concatEqual(runs [][]byte, b []byte) bool {
	for _, r := range runs {
		if !bytes.HasPrefix(b, r) {
			return false
		}
		b = b[len(r):]
	}
	return len(b) == 0
}
