package grouplab

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// TPSet is a set of partitions.
type TPSet map[TP]struct{}

// SetOf is the set of tps.
func SetOf(tps ...TP) TPSet {
	s := make(TPSet, len(tps))
	for _, tp := range tps {
		s[tp] = struct{}{}
	}
	return s
}

// AllPartitions is every partition of topics (name → partition count).
func AllPartitions(topics map[string]int32) TPSet {
	s := make(TPSet)
	for t, n := range topics {
		for p := range n {
			s[TP{Topic: t, Partition: p}] = struct{}{}
		}
	}
	return s
}

// Has reports whether tp is in s.
func (s TPSet) Has(tp TP) bool { _, ok := s[tp]; return ok }

// Minus is the partitions of s not in o.
func (s TPSet) Minus(o TPSet) TPSet {
	out := make(TPSet)
	for tp := range s {
		if !o.Has(tp) {
			out[tp] = struct{}{}
		}
	}
	return out
}

// Equal reports whether s and o hold the same partitions.
func (s TPSet) Equal(o TPSet) bool { return len(s) == len(o) && len(s.Minus(o)) == 0 }

// Sorted lists s by topic, then partition.
func (s TPSet) Sorted() []TP {
	return slices.SortedFunc(maps.Keys(s), compareTP)
}

func (s TPSet) String() string {
	parts := make([]string, 0, len(s))
	for _, tp := range s.Sorted() {
		parts = append(parts, tp.String())
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// LedgerEvent is one entry of a Ledger: a change of a member's partitions
// ("assigned", "revoked", "lost"), or a member that planned as leader
// ("led").
type LedgerEvent struct {
	At     time.Time
	Member string
	Kind   string
	// Generation of a session's change; -1 when the client does not say.
	Generation int32
	TPs        TPSet
	Detail     string
}

// Consumed is one record a member consumed.
type Consumed struct {
	At     time.Time
	Member string
	TP     TP
	Offset int64
}

// Session is a member's current session: its generation and partitions.
type Session struct {
	Generation int32
	Claims     []TP
}

// Ledger is the client-side view of one group whose members the lab does
// not drive itself (sarama, librdkafka, KafkaJS, kafka-python members):
// every member's reports of what it owns, on one timeline, and every
// record produced and consumed. Members are named by the test ("kcat-1"),
// not by their Kafka member id. A partition given to a member while
// another still owns it is a violation: two members would consume it at
// once. Violations are recorded, never panicked on, and the test reports
// them all at the end ([Ledger.Problems]). A Ledger is safe for concurrent
// use.
//
// A Lab's own franz-go members write the richer [Timeline] instead, which
// also knows the ownership epochs and commits its analysis needs.
type Ledger struct {
	mu         sync.Mutex
	owner      map[TP]string
	owned      map[string]TPSet
	gens       map[string]int32 // members with a session: its generation
	events     []LedgerEvent
	violations []string
	lastChange time.Time
	byValue    map[string][]Consumed
	byOffset   map[Offset]int
	produced   map[Offset]bool // produced → consumed at least once
}

// NewLedger returns an empty ledger.
func NewLedger() *Ledger {
	return &Ledger{
		owner: map[TP]string{}, owned: map[string]TPSet{}, gens: map[string]int32{},
		byValue: map[string][]Consumed{}, byOffset: map[Offset]int{}, produced: map[Offset]bool{},
		lastChange: time.Now(),
	}
}

// Assigned adds tps to member's partitions.
func (l *Ledger) Assigned(member string, tps TPSet, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.assignedLocked(member, -1, tps, at)
}

func (l *Ledger) assignedLocked(member string, gen int32, tps TPSet, at time.Time) {
	l.events = append(l.events, LedgerEvent{At: at, Member: member, Kind: "assigned", Generation: gen, TPs: tps})
	mine := l.owned[member]
	if mine == nil {
		mine = make(TPSet)
		l.owned[member] = mine
	}
	for _, tp := range tps.Sorted() {
		if o, ok := l.owner[tp]; ok && o != member {
			l.violations = append(l.violations, fmt.Sprintf("%s: %s was given %s while %s still owned it%s",
				at.Format("15:04:05.000"), member, tp, o, genSuffix(gen)))
		}
		l.owner[tp] = member
		mine[tp] = struct{}{}
	}
	l.lastChange = at
}

func genSuffix(gen int32) string {
	if gen < 0 {
		return ""
	}
	return fmt.Sprintf(" (generation %d)", gen)
}

// Replaced sets member's partitions to exactly tps (an eager member's new
// assignment, or a cooperative member's full list).
func (l *Ledger) Replaced(member string, tps TPSet, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.replacedLocked(member, -1, tps, at)
}

func (l *Ledger) replacedLocked(member string, gen int32, tps TPSet, at time.Time) {
	l.revokedLocked(member, gen, l.owned[member].Minus(tps), at, "revoked")
	l.assignedLocked(member, gen, tps, at)
}

// Revoked removes tps from member's partitions; kind is "revoked" or
// "lost".
func (l *Ledger) Revoked(member string, tps TPSet, at time.Time, kind string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.revokedLocked(member, -1, tps, at, kind)
}

func (l *Ledger) revokedLocked(member string, gen int32, tps TPSet, at time.Time, kind string) {
	if len(tps) == 0 {
		return
	}
	l.events = append(l.events, LedgerEvent{At: at, Member: member, Kind: kind, Generation: gen, TPs: tps})
	for tp := range tps {
		if l.owner[tp] == member {
			delete(l.owner, tp)
		}
		delete(l.owned[member], tp)
	}
	l.lastChange = at
}

// RevokedAll removes every partition of member (eager revocation,
// leaving).
func (l *Ledger) RevokedAll(member string, at time.Time, kind string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.revokedLocked(member, -1, maps.Clone(l.owned[member]), at, kind)
}

// SessionStarted records a session of a client that reports its
// generation with the partitions it claims (sarama's Setup): member owns
// exactly claims now.
func (l *Ledger) SessionStarted(member string, gen int32, claims []TP, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.replacedLocked(member, gen, SetOf(claims...), at)
	l.gens[member] = gen
}

// SessionEnded records the end of member's session (sarama's Cleanup):
// its claims are released.
func (l *Ledger) SessionEnded(member string, gen int32, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.revokedLocked(member, gen, maps.Clone(l.owned[member]), at, "revoked")
	delete(l.gens, member)
	l.lastChange = at
}

// Sessions returns every member's current session, and when a member's
// partitions or session last changed.
func (l *Ledger) Sessions() (map[string]Session, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]Session, len(l.gens))
	for m, gen := range l.gens {
		out[m] = Session{Generation: gen, Claims: l.owned[m].Sorted()}
	}
	return out, l.lastChange
}

// Led records that member planned the group as leader; detail says how.
func (l *Ledger) Led(member, detail string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, LedgerEvent{At: at, Member: member, Kind: "led", Generation: -1, Detail: detail})
}

// Leaders returns, in order, the "led" events.
func (l *Ledger) Leaders() []LedgerEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []LedgerEvent
	for _, e := range l.events {
		if e.Kind == "led" {
			out = append(out, e)
		}
	}
	return out
}

// Consume records that member consumed value from tp at offset.
func (l *Ledger) Consume(member string, tp TP, offset int64, value string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.consumeLocked(member, tp, offset, value, at)
}

func (l *Ledger) consumeLocked(member string, tp TP, offset int64, value string, at time.Time) {
	l.byValue[value] = append(l.byValue[value], Consumed{At: at, Member: member, TP: tp, Offset: offset})
	o := Offset{TP: tp, Offset: offset}
	l.byOffset[o]++
	if _, ok := l.produced[o]; ok {
		l.produced[o] = true
	}
}

// ConsumeClaimed is Consume for a client whose consumption must come from
// a partition the member owns at that moment (its session's claims); a
// record from any other is a violation.
func (l *Ledger) ConsumeClaimed(member string, gen int32, tp TP, offset int64, value string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.owner[tp] != member {
		l.violations = append(l.violations, fmt.Sprintf("generation %d: %s consumed %s@%d without claiming it (owner %q)",
			gen, member, tp, offset, l.owner[tp]))
	}
	l.consumeLocked(member, tp, offset, value, at)
}

// Produced records that the record at tp and offset was produced.
func (l *Ledger) Produced(tp TP, offset int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	o := Offset{TP: tp, Offset: offset}
	l.produced[o] = l.byOffset[o] > 0
}

// ProducedCount is how many records were produced.
func (l *Ledger) ProducedCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.produced)
}

// Unconsumed is how many produced records nobody consumed yet.
func (l *Ledger) Unconsumed() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, done := range l.produced {
		if !done {
			n++
		}
	}
	return n
}

// Duplicates is how many records were consumed more than once.
func (l *Ledger) Duplicates() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.byOffset {
		if c > 1 {
			n++
		}
	}
	return n
}

// OwnedBy returns a copy of member's partitions.
func (l *Ledger) OwnedBy(member string) TPSet {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.owned[member])
}

// Owners returns a copy of the partition → owner map.
func (l *Ledger) Owners() map[TP]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.owner)
}

// ConsumersOf returns who consumed the record with value.
func (l *Ledger) ConsumersOf(value string) []Consumed {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.byValue[value])
}

// Problems returns the violations recorded so far.
func (l *Ledger) Problems() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.violations)
}

// History renders the ledger's events, for failure messages.
func (l *Ledger) History() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.events) == 0 {
		return "(no events)\n"
	}
	var b strings.Builder
	for _, e := range l.events {
		fmt.Fprintf(&b, "%s %-10s %-8s", e.At.Format("15:04:05.000"), e.Member, e.Kind)
		if e.Generation >= 0 {
			fmt.Fprintf(&b, " g%d", e.Generation)
		}
		if e.Kind == "led" {
			fmt.Fprintf(&b, " %s\n", e.Detail)
			continue
		}
		fmt.Fprintf(&b, " %s\n", e.TPs)
	}
	return b.String()
}

// Covers reports whether members together own exactly all, each partition
// once (the ledger keeps one owner per partition, so only coverage and
// membership need checking).
func (l *Ledger) Covers(all TPSet, members []string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.owner) != len(all) {
		return false
	}
	in := make(map[string]bool, len(members))
	for _, m := range members {
		in[m] = true
	}
	for tp, o := range l.owner {
		if !all.Has(tp) || !in[o] {
			return false
		}
	}
	return true
}

// Changes counts the ownership and leader events so far; it grows on
// every change.
func (l *Ledger) Changes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.events)
}

// Counts returns how many partitions each member owns.
func (l *Ledger) Counts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int, len(l.owned))
	for m, s := range l.owned {
		out[m] = len(s)
	}
	return out
}
