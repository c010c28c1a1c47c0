package request

import (
	"errors"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Unmarshal reads an AssignRequest's wire form into req, giving what
// proto.Unmarshal gives (proto.Equal) and failing where it fails. It
// differs in how it allocates the explicit member form: a leader that
// sends it lists, in every member, the topics it subscribes to and the
// partitions it owns, a million of each in a large group, and
// proto.Unmarshal makes a heap object of every topic name and owned-
// partitions message. Here the names are shared (one string per distinct
// name) and the messages and their partitions come from arrays shared by
// many members, so that decoding and the collections after it cost what
// the bytes cost, not what the objects cost.
//
// Only Member.topics and Member.owned_partitions are read by hand; every
// other field, and any field of theirs in an unexpected wire type, is
// handed to proto.Unmarshal as it came, so the two stay equal as the API
// grows.
func Unmarshal(b []byte, req *assigndv1.AssignRequest) error {
	var u unmarshaler
	return u.request(b, req)
}

// UnmarshalCanonical is [Unmarshal], and reports too whether b is what
// proto.MarshalOptions{Deterministic: true}.Marshal(req) gives: then b
// can stand for that marshaling (the history's input and its digest)
// without marshaling a large request again. false says only that it may
// differ.
func UnmarshalCanonical(b []byte, req *assigndv1.AssignRequest) (bool, error) {
	u := unmarshaler{check: true}
	err := u.request(b, req)
	if err != nil {
		return false, err
	}
	return u.canonicalRequest(req), nil
}

func (u *unmarshaler) request(b []byte, req *assigndv1.AssignRequest) error {
	proto.Reset(req)
	u.reqShape = shape{lo: fieldMembers, hi: fieldMembers, ok: true, split: -1}
	return message(b, req, u.track(&u.reqShape), func(f field) error {
		if f.num != fieldMembers || f.typ != protowire.BytesType {
			return errNotMine
		}
		m, err := u.member(f.val)
		req.Members = append(req.Members, m)
		return err
	})
}

// Field numbers of assignment.proto that Unmarshal reads itself.
const (
	fieldMembers         protowire.Number = 5 // AssignRequest.members
	fieldTopics          protowire.Number = 4 // Member.topics
	fieldOwnedPartitions protowire.Number = 5 // Member.owned_partitions
	fieldTopic           protowire.Number = 1 // TopicPartitions.topic
	fieldPartitions      protowire.Number = 2 // TopicPartitions.partitions
)

// maxShared bounds the names a request shares: past it, a name is its own
// string, so that a request of a million distinct names costs no more
// than proto.Unmarshal would.
const maxShared = 1 << 16

// Chunk sizes of the arrays owned-partitions messages and their partitions
// come from: they start small, so that a small request allocates little,
// and double up to these.
const (
	maxListChunk      = 4096
	maxTopicChunk     = 1 << 14
	maxPartitionChunk = 1 << 16
)

// unmarshaler holds what one request's members share: the names, and the
// arrays their lists are carved from (each list's capacity is its length,
// so that an append to one copies it rather than overwriting the next).
type unmarshaler struct {
	names      map[string]string
	lists      []assigndv1.TopicPartitions
	listChunk  int
	topics     arena[string]
	partitions arena[int32]
	prev       previous

	// check tracks whether the bytes are canonical (UnmarshalCanonical):
	// req and member are the shapes of the request and of the member
	// being read, scratch the marshaling of a member's other fields.
	check                            bool
	reqShape, memberShape, listShape shape
	scratch                          []byte
}

// arena hands out slices of one shared array at a time, in chunks that
// double up to max elements (a longer slice gets a chunk of its own).
type arena[T any] struct {
	buf []T
	max int
}

// reserve makes room for n more elements after those of the slice being
// built, which begin at start; it returns where they begin now.
func (a *arena[T]) reserve(start, n int) int {
	if cap(a.buf)-len(a.buf) >= n {
		return start
	}
	building := a.buf[start:]
	size := min(2*cap(a.buf)+16, a.max)
	if need := len(building) + n; need > size {
		// A slice longer than a chunk: room for as much again, so that
		// growing it one element at a time stays linear.
		size = need + len(building)
	}
	a.buf = append(make([]T, 0, size), building...)
	return 0
}

// since is the slice built from start, or nil if empty.
func (a *arena[T]) since(start int) []T {
	end := len(a.buf)
	if end == start {
		return nil
	}
	return a.buf[start:end:end]
}

// errNotMine, from a field's reader, hands the field to proto.Unmarshal.
var errNotMine = errors.New("not read here")

// errUTF8 is proto.Unmarshal's rejection of a proto3 string that is not
// UTF-8.
var errUTF8 = errors.New("string field contains invalid UTF-8")

// field is one field of a message: for the bytes wire type, val is its
// content; for the others, its value as it came.
type field struct {
	num protowire.Number
	typ protowire.Type
	val []byte
}

// message reads the fields of b into m: read reads those it knows, and
// proto.Unmarshal those read returns errNotMine for, each run of them
// where it lies in b (a message's bytes concatenated are the message
// merged, so the runs merged in turn are the fields read together), so
// that nothing is copied: a raw-metadata member is all one run.
//
// sh, unless nil, follows the records' shape for UnmarshalCanonical.
func message(b []byte, m proto.Message, sh *shape, read func(field) error) error {
	run := -1 // where the run of fields not read here began
	merge := func(end int) error {
		if run < 0 {
			return nil
		}
		seg := b[run:end]
		run = -1
		if sh != nil {
			sh.runs = append(sh.runs, seg)
		}
		return proto.UnmarshalOptions{Merge: true}.Unmarshal(seg, m)
	}
	for at := 0; at < len(b); {
		num, typ, n := protowire.ConsumeTag(b[at:])
		if n < 0 {
			return protowire.ParseError(n)
		}
		f := field{num: num, typ: typ}
		var v int
		if typ == protowire.BytesType {
			f.val, v = protowire.ConsumeBytes(b[at+n:])
		} else {
			v = protowire.ConsumeFieldValue(num, typ, b[at+n:])
		}
		if v < 0 {
			return protowire.ParseError(v)
		}
		if typ != protowire.BytesType {
			f.val = b[at+n : at+n+v]
		}
		switch err := read(f); {
		case err == errNotMine:
			if run < 0 {
				run = at
			}
			if sh != nil {
				sh.other(num)
			}
		case err != nil:
			return err
		default:
			if err := merge(at); err != nil {
				return err
			}
			if sh != nil {
				sh.mine(num, n == protowire.SizeTag(num) && (typ != protowire.BytesType || v == protowire.SizeBytes(len(f.val))))
			}
		}
		at += n + v
	}
	return merge(len(b))
}

func (u *unmarshaler) member(b []byte) (*assigndv1.Member, error) {
	m := &assigndv1.Member{}
	u.topics.max = maxTopicChunk
	topics := len(u.topics.buf)
	u.memberShape = shape{lo: fieldTopics, hi: fieldOwnedPartitions, ok: true, split: -1, runs: u.memberShape.runs[:0]}
	tracked := u.track(&u.memberShape)
	err := message(b, m, tracked, func(f field) error {
		switch {
		case f.typ != protowire.BytesType:
		case f.num == fieldTopics:
			s, err := u.name(f.val, u.prev.topic(len(u.topics.buf)-topics))
			topics = u.topics.reserve(topics, 1)
			u.topics.buf = append(u.topics.buf, s)
			return err
		case f.num == fieldOwnedPartitions:
			tp, err := u.topicPartitions(f.val, u.prev.owned(len(m.OwnedPartitions)))
			m.OwnedPartitions = append(m.OwnedPartitions, tp)
			return err
		}
		return errNotMine
	})
	m.Topics = u.topics.since(topics)
	u.prev = previous{m}
	if err == nil && tracked != nil && !u.canonicalMember(m) {
		u.reqShape.ok = false
	}
	return m, err
}

// previous is the member read before the one being read. Members of a
// group mostly subscribe to the same topics and own partitions of the
// same topics in the same order, so the name at the same place in the
// previous member's list is a guess that spares most lookups.
type previous struct{ m *assigndv1.Member }

// topic is the k-th subscribed topic of the previous member, or "".
func (p previous) topic(k int) string {
	if ts := p.m.GetTopics(); k < len(ts) {
		return ts[k]
	}
	return ""
}

// owned is the topic of the previous member's k-th owned list, or "".
func (p previous) owned(k int) string {
	if tps := p.m.GetOwnedPartitions(); k < len(tps) {
		return tps[k].GetTopic()
	}
	return ""
}

// topicPartitions reads one owned-partitions message into the next entry
// of the shared array, and its partitions, packed or not (proto.Unmarshal
// accepts both), into the shared partition array.
func (u *unmarshaler) topicPartitions(b []byte, guess string) (*assigndv1.TopicPartitions, error) {
	if len(u.lists) == 0 {
		u.listChunk = min(2*u.listChunk+16, maxListChunk)
		u.lists = make([]assigndv1.TopicPartitions, u.listChunk)
	}
	tp := &u.lists[0]
	u.lists = u.lists[1:]
	u.partitions.max = maxPartitionChunk
	if done, err := u.plainList(b, tp, guess); done {
		return tp, err
	}
	start := len(u.partitions.buf)
	// As proto.Marshal writes it: the topic unless empty, then the
	// partitions packed unless none, each once, and nothing else.
	u.listShape = shape{lo: fieldTopic, hi: fieldPartitions, ok: true, runs: u.listShape.runs[:0]}
	sh := u.track(&u.memberShape)
	if sh != nil {
		sh = &u.listShape
	}
	err := message(b, tp, sh, func(f field) error {
		switch {
		case f.num == fieldTopic && f.typ == protowire.BytesType:
			u.listShape.ok = u.listShape.ok && u.listShape.block == 0 && len(f.val) > 0
			s, err := u.name(f.val, guess)
			tp.Topic = s
			return err
		case f.num == fieldPartitions && f.typ == protowire.BytesType:
			u.listShape.ok = u.listShape.ok && u.listShape.last != fieldPartitions && len(f.val) > 0
			start = u.partitions.reserve(start, varints(f.val))
			canonical, err := u.packedPartitions(f.val, sh != nil)
			if !canonical {
				u.listShape.ok = false
			}
			return err
		case f.num == fieldPartitions && f.typ == protowire.VarintType:
			u.listShape.ok = false
			start = u.partitions.reserve(start, 1)
			p, _ := protowire.ConsumeVarint(f.val)
			u.partitions.buf = append(u.partitions.buf, int32(p))
			return nil
		}
		return errNotMine
	})
	tp.Partitions = u.partitions.since(start)
	if sh != nil && (!u.listShape.ok || len(u.listShape.runs) > 0) {
		u.memberShape.ok = false
	}
	return tp, err
}

// plainList reads b into tp, as topicPartitions does, when b is laid
// out as protobuf writes a TopicPartitions (a topic record, then one of
// packed partitions, either absent; their lengths of any size), the
// shape of nearly every list: without the generic reader's per-record
// calls, a million of them cost half as much. It reports false, having
// changed nothing, for any other b, which the generic reader takes.
func (u *unmarshaler) plainList(b []byte, tp *assigndv1.TopicPartitions, guess string) (bool, error) {
	const topicTag = byte(fieldTopic)<<3 | byte(protowire.BytesType)
	const partitionsTag = byte(fieldPartitions)<<3 | byte(protowire.BytesType)
	topic, packed, minimal := []byte(nil), []byte(nil), true
	hasTopic := len(b) > 0 && b[0] == topicTag
	if hasTopic {
		v, n := protowire.ConsumeBytes(b[1:])
		if n < 0 {
			return false, nil
		}
		topic, b, minimal = v, b[1+n:], n == protowire.SizeBytes(len(v)) && len(v) > 0
	}
	hasPacked := len(b) > 0 && b[0] == partitionsTag
	if hasPacked {
		v, n := protowire.ConsumeBytes(b[1:])
		if n < 0 {
			return false, nil
		}
		packed, b, minimal = v, b[1+n:], minimal && n == protowire.SizeBytes(len(v)) && len(v) > 0
	}
	if len(b) > 0 {
		return false, nil
	}
	check := u.track(&u.memberShape) != nil
	if hasTopic {
		s, err := u.name(topic, guess)
		if err != nil {
			return true, err
		}
		tp.Topic = s
	}
	if hasPacked {
		start := u.partitions.reserve(len(u.partitions.buf), varints(packed))
		canonical, err := u.packedPartitions(packed, check)
		tp.Partitions = u.partitions.since(start)
		if err != nil {
			return true, err
		}
		minimal = minimal && canonical
	}
	if check && !minimal {
		u.memberShape.ok = false
	}
	return true, nil
}

// packedPartitions appends the packed varints v to the partitions arena
// (room for them reserved); with check, canonical says whether each is
// written as protobuf writes an int32 ([canonicalInt32]).
func (u *unmarshaler) packedPartitions(v []byte, check bool) (canonical bool, err error) {
	canonical = true
	for len(v) > 0 {
		p, n := protowire.ConsumeVarint(v)
		if n < 0 {
			return canonical, protowire.ParseError(n)
		}
		if check && !canonicalInt32(p, n) {
			canonical = false
		}
		u.partitions.buf = append(u.partitions.buf, int32(p))
		v = v[n:]
	}
	return canonical, nil
}

// varints counts the varints of a packed list: their last bytes, the
// bytes without the continuation bit.
func varints(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// name is the string of a topic name, shared with every other use of the
// same name in the request: guess (a name read before) when it is that.
func (u *unmarshaler) name(b []byte, guess string) (string, error) {
	if guess != "" && guess == string(b) {
		return guess, nil
	}
	if s, ok := u.names[string(b)]; ok {
		return s, nil
	}
	if !utf8.Valid(b) {
		return "", errUTF8
	}
	s := string(b)
	if u.names == nil {
		u.names = make(map[string]string)
	}
	if len(u.names) < maxShared {
		u.names[s] = s
	}
	return s, nil
}
