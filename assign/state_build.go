package assign

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// newState validates g and builds its dense form for assignor a.
func newState(a Assignor, g *Group, o options) (*state, error) {
	st := &state{group: g, opts: o, stop: newStopper(&o)}
	st.ints.stop = &st.stop
	if err := st.setProtocol(a, g.Protocol); err != nil {
		return nil, err
	}
	if err := st.setMembers(g.Members); err != nil {
		return nil, err
	}
	meta, err := indexMetadata(g.Topics, &st.stop)
	if err != nil {
		return nil, err
	}
	st.meta = meta
	// The int32 slices a Run needs come from two allocations: this one for
	// the topic- and member-sized ones needed before the subscribed
	// partitions are known, and one in setTopics for the rest.
	st.ints.reserve(2*len(g.Topics) + 4*len(g.Members) + 16)
	if err := st.setTopics(); err != nil {
		return nil, err
	}
	st.setSubscriptions()
	if err := st.setWeights(); err != nil {
		return nil, err
	}
	st.stop.phase = "claims"
	st.resolveClaims(a)
	st.stop.phase = "racks"
	st.setRacks(o.rackAware)
	return st, nil
}

func (st *state) setProtocol(a Assignor, p RebalanceProtocol) error {
	switch p {
	case ProtocolUnspecified:
		st.protocol = a.protocols()[0]
		return nil
	case Eager, Cooperative:
		if !Supports(a, p) {
			return &InputError{Field: "rebalance_protocol", Err: ErrUnsupportedProtocol,
				Reason: fmt.Sprintf("assignor %s does not support the %s protocol", Ref(a), p)}
		}
		st.protocol = p
		return nil
	}
	return invalid("", "rebalance_protocol", "unknown rebalance protocol %d", int8(p))
}

func (st *state) setMembers(ms []Member) error {
	st.members = make([]*Member, len(ms))
	for i := range ms {
		st.stop.at(i)
		if ms[i].ID == "" {
			return invalid("", fmt.Sprintf("members[%d].member_id", i), "member id is empty")
		}
		if reason := badName(ms[i].Rack); reason != "" && ms[i].Rack != "" {
			return invalid(ms[i].ID, fmt.Sprintf("members[%d].rack_id", i), "rack id %s", reason)
		}
		st.members[i] = &ms[i]
	}
	step := 0 // comparisons, for polling: sorting 100,000 ids takes milliseconds
	slices.SortFunc(st.members, func(a, b *Member) int {
		step = st.stop.over(step, 1)
		return strings.Compare(a.ID, b.ID)
	})
	for i := 1; i < len(st.members); i++ {
		if st.members[i].ID == st.members[i-1].ID {
			return invalid(st.members[i].ID, "members.member_id", "member id appears more than once")
		}
	}
	return nil
}

// inputIndex returns the index in the group's Members of the member at
// sorted index i, for error messages that point into the caller's input.
func (st *state) inputIndex(i int) int {
	for k := range st.group.Members {
		if &st.group.Members[k] == st.members[i] {
			return k
		}
	}
	return i
}

// indexMetadata validates the topic metadata and maps names to their index.
func indexMetadata(topics []Topic, stop *stopper) (map[string]int32, error) {
	meta := make(map[string]int32, len(topics))
	for i := range topics {
		stop.at(i)
		t := &topics[i]
		field := func(name string) string { return fmt.Sprintf("topics[%d].%s", i, name) }
		switch {
		case badName(t.Name) != "":
			return nil, invalid("", field("name"), "topic name %s", badName(t.Name))
		case t.Partitions < 0:
			return nil, invalid("", field("partition_count"), "topic %q has a negative partition count %d", clipName(t.Name), t.Partitions)
		case t.Racks != nil && len(t.Racks) != int(t.Partitions):
			return nil, invalid("", field("partition_racks"), "topic %q has racks for %d partitions but %d partitions", clipName(t.Name), len(t.Racks), t.Partitions)
		}
		if _, dup := meta[t.Name]; dup {
			return nil, invalid("", field("name"), "topic %q is listed more than once", clipName(t.Name))
		}
		meta[t.Name] = int32(i)
	}
	return meta, nil
}

// setTopics numbers the subscribed topics that exist and have partitions.
func (st *state) setTopics() error {
	const (
		unseen  = -1
		found   = -2
		useless = -3 // no partitions
	)
	st.denseOf = st.ints.filled(len(st.group.Topics), unseen)
	var missing []string
	var prev []string
	step := 0
	for i, m := range st.members {
		step = st.stop.over(step, len(m.Topics))
		// Members with equal subscriptions usually share topic strings
		// (interned by the decoder): comparing against the previous list
		// is cheap and skips the map work.
		if sameTopics(m.Topics, prev) {
			continue
		}
		prev = m.Topics
		for j, name := range m.Topics {
			st.stop.at(j)
			if reason := badName(name); reason != "" {
				return invalid(m.ID, fmt.Sprintf("members[%d].topics[%d]", st.inputIndex(i), j), "topic name %s", reason)
			}
			mi, ok := st.meta[name]
			if !ok {
				missing = append(missing, name)
				continue
			}
			if st.denseOf[mi] != unseen {
				continue
			}
			t := &st.group.Topics[mi]
			if t.Partitions == 0 {
				st.denseOf[mi] = useless
				continue
			}
			st.denseOf[mi] = found
			if st.topics == nil {
				st.topics = make([]*Topic, 0, len(st.group.Topics))
			}
			st.topics = append(st.topics, t)
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		missing = slices.Compact(missing)
		st.warnings = append(st.warnings, "subscribed topics missing from metadata get no partitions: "+nameList(missing))
	}
	step = 0
	slices.SortFunc(st.topics, func(a, b *Topic) int {
		step = st.stop.over(step, 1)
		return strings.Compare(a.Name, b.Name)
	})
	total := int64(0)
	for _, t := range st.topics {
		total += int64(t.Partitions)
	}
	if total > 1<<30 {
		return invalid("", "topics", "more than %d partitions in subscribed topics", 1<<30)
	}
	// Partition-sized slices (topicOf, prev, prevGen, target, the
	// result's two) and the remaining member- and topic-sized ones; the
	// arena gives big slices allocations of their own.
	perPartition := 6 * int(total)
	if total >= bigSlice {
		perPartition = 0
	}
	st.ints.reserve(perPartition + 16*len(st.members) + 2*len(st.topics) + 64)
	st.start = st.ints.take(len(st.topics) + 1)
	total = 0
	for i, t := range st.topics {
		st.denseOf[st.meta[t.Name]] = int32(i)
		st.start[i] = int32(total)
		total += int64(t.Partitions)
	}
	st.start[len(st.topics)] = int32(total)
	st.topicOf = st.ints.take(int(total))
	for i := range st.topics {
		for p := st.start[i]; p < st.start[i+1]; p++ {
			st.stop.at(int(p))
			st.topicOf[p] = int32(i)
		}
	}
	return nil
}

// topicIndex returns the dense id of a subscribed topic with partitions.
func (st *state) topicIndex(name string) (int32, bool) {
	mi, ok := st.meta[name]
	if !ok {
		return -1, false
	}
	t := st.denseOf[mi]
	return t, t >= 0
}

// setSubscriptions fills subs, subscribers and equalSubs.
func (st *state) setSubscriptions() {
	// subs, claims and subscribers share one allocation.
	lists := make([][]int32, 2*len(st.members)+len(st.topics))
	st.subs, st.claims = lists[:len(st.members):len(st.members)], lists[len(st.members):2*len(st.members):2*len(st.members)]
	st.subscribers = lists[2*len(st.members):]
	var prevTopics []string
	var prevSubs []int32
	st.equalSubs = true
	step := 0
	for i, m := range st.members {
		step = st.stop.over(step, len(m.Topics))
		if i > 0 && sameTopics(m.Topics, prevTopics) {
			st.subs[i] = prevSubs
			continue
		}
		s := st.ints.take(len(m.Topics))[:0]
		for j, name := range m.Topics {
			st.stop.at(j)
			if t, ok := st.topicIndex(name); ok {
				s = append(s, t)
			}
		}
		slices.Sort(s)
		s = slices.Compact(s)
		st.subs[i] = s
		prevTopics, prevSubs = m.Topics, s
		if i > 0 && !slices.Equal(s, st.subs[0]) {
			st.equalSubs = false
		}
	}
	if st.equalSubs {
		// Every topic has every member: one list serves them all.
		everyone := st.ints.take(len(st.members))
		for i := range everyone {
			everyone[i] = int32(i)
		}
		for t := range st.subscribers {
			st.subscribers[t] = everyone
		}
		return
	}
	counts := st.ints.take(len(st.topics))
	total := 0
	for i, s := range st.subs {
		st.stop.at(i)
		for _, t := range s {
			counts[t]++
		}
		total += len(s)
	}
	flat := st.ints.take(total)
	off := 0
	for t, c := range counts {
		st.subscribers[t] = flat[off : off : off+int(c)]
		off += int(c)
	}
	for i, s := range st.subs {
		st.stop.at(i)
		for _, t := range s {
			st.subscribers[t] = append(st.subscribers[t], int32(i))
		}
	}
}

// sameTopics compares two subscriptions' topic lists, in O(1) when they are
// the same slice (a wire.Decoder hands identical lists out shared).
func sameTopics(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true
	}
	return slices.Equal(a, b)
}

// maxNameLen is the longest name the Kafka protocol can carry (an int16
// length); Kafka itself allows topic names of at most 249 characters.
const maxNameLen = 1<<15 - 1

// badName says what is wrong with a topic or rack name, or "" if nothing
// is: names go back to clients in assignments, messages and warnings, so
// they must be encodable and valid UTF-8.
func badName(s string) string {
	switch {
	case s == "":
		return "is empty"
	case len(s) > maxNameLen:
		return fmt.Sprintf("is %d bytes long, more than the protocol's %d", len(s), maxNameLen)
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	}
	return ""
}

// clipName shortens a name quoted in a message.
func clipName(s string) string {
	const n = 100
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// nameList joins names for a warning, at most 20 of them.
func nameList(names []string) string {
	const most = 20
	var b strings.Builder
	for i, n := range names {
		if i == most {
			fmt.Fprintf(&b, " and %d more", len(names)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(clipName(n))
	}
	return b.String()
}
