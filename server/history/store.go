package history

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Store keeps the last decisions of the groups an assignd replica serves
// and, with a [Publisher], of the whole fleet's. It is safe for concurrent
// use.
type Store struct {
	cfg config
	// seq numbers this run's records (Decision.sequence).
	seq atomic.Uint64

	mu     sync.Mutex
	groups map[string]*group
	// lru is a ring through group.prev/next: lru.next is the most recently
	// seen group, lru.prev the least.
	lru group
	// inputs is a ring through inputEntry.prev/next of every input kept,
	// in the order they were recorded: inputs.next is the oldest.
	inputs     inputEntry
	inputBytes int64
	// groupBytes is the heap of every group's own state and decisions
	// (group.size summed); with inputBytes, what the byte bound counts.
	groupBytes int64
	replicas   map[runKey]*replicaRun
	lastRun    *replicaRun // the run of the last record, or nil
}

// group is one group's state. Its fields are written under Store.mu only.
type group struct {
	id         string
	prev, next *group
	// decisions is a ring of the last decisions; head is where the next
	// one goes, n how many it holds.
	decisions []kept
	head, n   int
	recorded  int64
	// shadows is a ring of the last shadow runs' records, allocated with
	// the first.
	shadows           []kept
	shadowHead, nshad int
	// times is a ring of the last StormCap decision times, in Unix
	// nanoseconds (8 bytes each, not time.Time's 24).
	times     []int64
	timesHead int
	// hour counts the decisions of each of the last 60 minutes: hour[m%60]
	// is minute m (Unix minutes), for m in (hourMin-60, hourMin].
	hour    [60]uint16
	hourMin int64
	// cooperativeUntil is when the group last called with
	// cooperative-sticky (zero: never).
	cooperativeUntil time.Time
	// inputs is a ring of the last inputs, allocated with the first.
	inputs    []*inputEntry
	inputHead int

	// lastKeys are the member keys of the latest decision (see
	// memberKeys); joins is a ring of the last StormCap joins, allocated
	// at the first.
	lastKeys  []uint64
	joins     []joinEvent
	joinsHead int

	// held is the heap of the decisions and shadow records in the rings
	// ([kept.size] of each); size is what the Store counted for the
	// group when it last recounted it (see Store.recount).
	held, size int64
}

// New returns an empty Store.
func New(opts ...Option) (*Store, error) {
	cfg := config{
		decisions: DefaultDecisionsPerGroup, groups: DefaultMaxGroups, now: time.Now,
		inputsPerGroup: DefaultInputsPerGroup, inputBytes: DefaultInputBytes, maxBytes: DefaultMaxBytes,
	}
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.decisions < 1 || cfg.groups < 1 || cfg.maxBytes < 1 {
		return nil, fmt.Errorf("history: decisions per group (%d), groups (%d) and the byte bound (%d) must be at least 1", cfg.decisions, cfg.groups, cfg.maxBytes)
	}
	if cfg.inputsPerGroup < 0 || cfg.inputBytes < 0 {
		return nil, fmt.Errorf("history: inputs per group (%d) and input bytes (%d) must not be negative", cfg.inputsPerGroup, cfg.inputBytes)
	}
	if cfg.now == nil {
		return nil, errors.New("history: WithClock needs a clock")
	}
	if cfg.incarnation == 0 {
		cfg.incarnation = newIncarnation()
	}
	cfg.thresholds = cfg.thresholds.withDefaults()
	s := &Store{cfg: cfg, groups: make(map[string]*group), replicas: make(map[runKey]*replicaRun)}
	s.lru.prev, s.lru.next = &s.lru, &s.lru
	s.inputs.prev, s.inputs.next = &s.inputs, &s.inputs
	return s, nil
}

// Replica returns the replica name and incarnation this Store stamps on
// its records.
func (s *Store) Replica() (string, uint64) { return s.cfg.replica, s.cfg.incarnation }

// NextSequence reserves the next sequence number of this run, for a
// record made outside the Store (a [Publisher]'s gap record).
func (s *Store) NextSequence() uint64 { return s.seq.Add(1) }

// Record adds d, a decision this replica made, with no input kept; see
// [Store.RecordInput].
func (s *Store) Record(d *assigndv1.Decision) { s.RecordInput(d, nil) }

// RecordInput adds d, a decision this replica made (or a shadow run's,
// with d.Shadow), and input, the request it answered marshaled
// deterministically (nil: none kept). It stamps d with this replica's
// name, incarnation and next sequence number, then hands it to the
// Publisher, if any. d and input must not be modified afterwards:
// readers share them. The work under the lock is constant: a map
// lookup, a list move, ring writes and the signals' state (and, when the
// input budget is exceeded, forgetting the oldest inputs, each once).
func (s *Store) RecordInput(d *assigndv1.Decision, input []byte) {
	d.Replica, d.Incarnation, d.Sequence = s.cfg.replica, s.cfg.incarnation, s.seq.Add(1)
	k := keep(d)
	s.mu.Lock()
	s.add(d, k, input, false)
	s.mu.Unlock()
	if s.cfg.publisher != nil {
		s.cfg.publisher.Publish(d, input)
	}
}

// Apply adds a record read from the shared log: another replica's, or
// this replica's from an earlier run. Records of this run are skipped
// (they were recorded when made), and so is a record already held (the
// same replica, incarnation and sequence), so that reading the log again
// changes nothing. Apply never publishes.
func (s *Store) Apply(rec *assigndv1.HistoryRecord) {
	if d := rec.GetDecision(); d != nil {
		if s.own(d.GetReplica(), d.GetIncarnation()) {
			return
		}
		k := keep(d)
		s.mu.Lock()
		s.add(d, k, rec.GetInput(), true)
		s.mu.Unlock()
		return
	}
	if g := rec.GetGap(); g != nil && !s.own(g.GetReplica(), g.GetIncarnation()) {
		s.NoteGap(g)
	}
}

func (s *Store) own(replica string, incarnation uint64) bool {
	return replica == s.cfg.replica && incarnation == s.cfg.incarnation
}

// add records d, kept as k, under s.mu; read (from the shared log), it
// may be a record already held. One this run made has a new sequence
// number.
func (s *Store) add(d *assigndv1.Decision, k kept, input []byte, read bool) {
	at := d.GetTime().AsTime()
	g := s.groups[d.GetGroupId()]
	if read && g != nil && g.holds(d) {
		return
	}
	s.run(d.GetReplica(), d.GetIncarnation()).note(at)
	if g == nil {
		g = s.admit(d.GetGroupId())
	} else {
		g.unlink()
	}
	g.linkAfter(&s.lru)
	if d.GetShadow() {
		g.insertShadow(k, at, len(g.decisions))
	} else {
		g.record(d, k, at)
		if input != nil {
			s.addInput(g, d, at, input)
		}
	}
	s.recount(g)
	s.fit(g)
}

// record adds d, not a shadow run's, kept as k, to g's ring and its
// signals' state.
func (g *group) record(d *assigndv1.Decision, k kept, at time.Time) {
	if d.GetProtocolName() == cooperativeSticky && at.After(g.cooperativeUntil) {
		g.cooperativeUntil = at
	}
	g.noteJoins(memberKeys(d), at)
	g.insert(k, at)
	g.recorded++
	g.times[g.timesHead] = at.UnixNano()
	g.timesHead = (g.timesHead + 1) % len(g.times)
	g.countHour(at)
}

// recount brings the Store's count of g's heap up to date, under s.mu.
func (s *Store) recount(g *group) {
	n := groupSize(g) + g.held
	s.groupBytes += n - g.size
	g.size = n
}

// fit forgets the least recently seen groups, never keep (the group just
// recorded), until what the Store holds is within its byte bound.
func (s *Store) fit(keep *group) {
	for s.groupBytes+s.inputBytes > s.cfg.maxBytes {
		g := s.lru.prev
		if g == keep || g == &s.lru {
			return
		}
		s.forget(g)
	}
}

// forget removes g and its inputs, under s.mu.
func (s *Store) forget(g *group) {
	g.unlink()
	delete(s.groups, g.id)
	for _, e := range g.inputs {
		if e != nil {
			s.unlinkInput(e)
		}
	}
	s.groupBytes -= g.size
}

// holds reports whether g already holds the record d (same replica,
// incarnation and sequence): a duplicate delivery, or the log read again.
func (g *group) holds(d *assigndv1.Decision) bool {
	if d.GetSequence() == 0 {
		return false
	}
	ring := g.decisions
	if d.GetShadow() {
		ring = g.shadows
	}
	for _, k := range ring {
		if k := k.sum; k != nil && k.GetSequence() == d.GetSequence() && k.GetIncarnation() == d.GetIncarnation() && k.GetReplica() == d.GetReplica() {
			return true
		}
	}
	return false
}

// countHour counts a decision at at in the minute buckets.
func (g *group) countHour(at time.Time) {
	m := at.Unix() / 60
	if m <= 0 {
		return // no time, or before 1970: nothing of the last hour
	}
	switch {
	case m >= g.hourMin+60:
		g.hour = [60]uint16{}
		g.hourMin = m
	case m > g.hourMin:
		for i := g.hourMin + 1; i <= m; i++ {
			g.hour[i%60] = 0
		}
		g.hourMin = m
	case m <= g.hourMin-60:
		return // older than the hour kept
	}
	if g.hour[m%60] < ^uint16(0) {
		g.hour[m%60]++
	}
}

// admit adds a group, evicting the least recently seen one when full.
func (s *Store) admit(id string) *group {
	var g *group
	if len(s.groups) >= s.cfg.groups {
		// Reuse the evicted group's rings: recording a new group at the
		// bound allocates nothing but its map entry.
		g = s.lru.prev
		s.forget(g)
		clear(g.decisions)
		clear(g.times)
		clear(g.shadows)
		clear(g.inputs)
		clear(g.joins)
		*g = group{decisions: g.decisions, times: g.times, shadows: g.shadows, inputs: g.inputs, joins: g.joins}
	} else {
		g = &group{
			decisions: make([]kept, s.cfg.decisions),
			times:     make([]int64, StormCap),
		}
	}
	g.id = id
	s.groups[id] = g
	return g
}

func (g *group) unlink() {
	g.prev.next, g.next.prev = g.next, g.prev
	g.prev, g.next = nil, nil
}

func (g *group) linkAfter(at *group) {
	g.prev, g.next = at, at.next
	at.next.prev = g
	at.next = g
}

// latest is the newest decision's summary, nil when none.
func (g *group) latest() *assigndv1.Decision {
	if g.n == 0 {
		return nil
	}
	return g.decisions[(g.head-1+len(g.decisions))%len(g.decisions)].sum
}

// insert adds d to the ring in time order. Decisions are recorded once
// their response is written, so a call's record may come just after the
// next call's, and other replicas' records come in the log's order: d
// then moves back past the newer ones (at most the ring's size).
func (g *group) insert(k kept, at time.Time) {
	g.held += k.size() - g.decisions[g.head].size()
	g.head, g.n = insertRing(g.decisions, g.head, g.n, k, at)
}

// insertShadow adds a shadow run's record to its ring, allocated with
// the first one (size slots).
func (g *group) insertShadow(k kept, at time.Time, size int) {
	if g.shadows == nil {
		g.shadows = make([]kept, size)
	}
	g.held += k.size() - g.shadows[g.shadowHead].size()
	g.shadowHead, g.nshad = insertRing(g.shadows, g.shadowHead, g.nshad, k, at)
}

func insertRing(ring []kept, head, n int, k kept, at time.Time) (int, int) {
	size := len(ring)
	ring[head] = k
	j := head
	head = (head + 1) % size
	n = min(n+1, size)
	for range n - 1 {
		older := (j - 1 + size) % size
		if !ring[older].sum.GetTime().AsTime().After(at) {
			break
		}
		ring[j], ring[older] = ring[older], k
		j = older
	}
	return head, n
}

// newestFirst copies n entries of a ring ending before head.
func newestFirst(ring []kept, head, n int) []kept {
	ds := make([]kept, n)
	for i := range ds {
		ds[i] = ring[(head-1-i+2*len(ring))%len(ring)]
	}
	return ds
}

// Len is the number of groups remembered.
func (s *Store) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.groups)
}

// snapshot is a copy of one group's state, taken under the lock and read
// without it.
type snapshot struct {
	id string
	// decisions are the summaries of kept (see [kept]), newest first.
	decisions        []*assigndv1.Decision
	kept             []kept
	shadows          []kept // newest first
	recorded         int64
	times            []int64
	hour             [60]uint16
	hourMin          int64
	joins            []joinEvent
	cooperativeUntil time.Time
}

// snapshot copies g's state and the pointers to its decisions.
func (g *group) snapshot() snapshot {
	ks := newestFirst(g.decisions, g.head, g.n)
	sn := snapshot{
		id: g.id, decisions: sums(ks), kept: ks, recorded: g.recorded,
		times: append([]int64(nil), g.times...), hour: g.hour, hourMin: g.hourMin,
		joins: slices.Clone(g.joins), cooperativeUntil: g.cooperativeUntil,
	}
	if g.nshad > 0 {
		sn.shadows = newestFirst(g.shadows, g.shadowHead, g.nshad)
	}
	return sn
}

// rebalancesSince counts the decisions of the minutes after since.
func (sn *snapshot) rebalancesSince(since time.Time) int {
	if sn.hourMin <= 0 {
		return 0
	}
	from := since.Unix()/60 + 1
	n := 0
	for m := max(from, sn.hourMin-59); m <= sn.hourMin; m++ {
		n += int(sn.hour[m%60])
	}
	return n
}
