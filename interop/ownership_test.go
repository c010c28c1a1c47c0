//go:build unix

package interop

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/assignd/assignd/assign/wire"
)

// tp is one topic partition.
type tp struct {
	topic     string
	partition int32
}

func (p tp) String() string { return fmt.Sprintf("%s/%d", p.topic, p.partition) }

// tpSet is a set of partitions.
type tpSet map[tp]struct{}

func setOf(tps []wire.TopicPartitions) tpSet {
	s := make(tpSet)
	for _, t := range tps {
		for _, p := range t.Partitions {
			s[tp{t.Topic, p}] = struct{}{}
		}
	}
	return s
}

func setOfMap(m map[string][]int32) tpSet {
	s := make(tpSet)
	for topic, ps := range m {
		for _, p := range ps {
			s[tp{topic, p}] = struct{}{}
		}
	}
	return s
}

func (s tpSet) has(p tp) bool { _, ok := s[p]; return ok }

// minus returns the partitions of s not in o.
func (s tpSet) minus(o tpSet) tpSet {
	out := make(tpSet)
	for p := range s {
		if !o.has(p) {
			out[p] = struct{}{}
		}
	}
	return out
}

func (s tpSet) equal(o tpSet) bool { return len(s) == len(o) && len(s.minus(o)) == 0 }

func (s tpSet) String() string {
	ps := slices.Collect(maps.Keys(s))
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].topic != ps[j].topic {
			return ps[i].topic < ps[j].topic
		}
		return ps[i].partition < ps[j].partition
	})
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// allPartitions lists every partition of topics (name → count).
func allPartitions(topics map[string]int32) tpSet {
	s := make(tpSet)
	for t, n := range topics {
		for p := int32(0); p < n; p++ {
			s[tp{t, p}] = struct{}{}
		}
	}
	return s
}

// ownEvent is one change of a member's partitions, as the member reported it.
type ownEvent struct {
	at     time.Time
	member string
	kind   string // "assigned", "revoked", "lost"
	tps    tpSet
}

// consumption is one record a member consumed.
type consumption struct {
	at     time.Time
	member string
	tp     tp
	offset int64
}

// ledger is the client-side view of one group: every member's reports of
// what it owns, on one timeline, and every record consumed. Members are
// named by the test ("kcat-1"), not by their Kafka member id. It is safe
// for concurrent use; a violation is recorded, never panicked on, and the
// test reports them all at the end.
type ledger struct {
	mu         sync.Mutex
	owner      map[tp]string
	owned      map[string]tpSet
	events     []ownEvent
	violations []string
	consumed   map[string][]consumption // record value → who consumed it
}

func newLedger() *ledger {
	return &ledger{owner: make(map[tp]string), owned: make(map[string]tpSet), consumed: make(map[string][]consumption)}
}

// assigned adds tps to member's partitions. A partition another member
// still owns is a violation: two members would consume it at once.
func (l *ledger) assigned(member string, tps tpSet, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ownEvent{at, member, "assigned", tps})
	mine := l.owned[member]
	if mine == nil {
		mine = make(tpSet)
		l.owned[member] = mine
	}
	for p := range tps {
		if o, ok := l.owner[p]; ok && o != member {
			l.violations = append(l.violations, fmt.Sprintf("%s: %s was given %s while %s still owned it",
				at.Format("15:04:05.000"), member, p, o))
		}
		l.owner[p] = member
		mine[p] = struct{}{}
	}
}

// replaced sets member's partitions to exactly tps (an eager member's new
// assignment, or a cooperative member's full list).
func (l *ledger) replaced(member string, tps tpSet, at time.Time) {
	l.mu.Lock()
	gone := l.owned[member].minus(tps)
	l.mu.Unlock()
	if len(gone) > 0 {
		l.revoked(member, gone, at, "revoked")
	}
	l.assigned(member, tps, at)
}

// revoked removes tps from member's partitions; kind is "revoked" or
// "lost".
func (l *ledger) revoked(member string, tps tpSet, at time.Time, kind string) {
	if len(tps) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, ownEvent{at, member, kind, tps})
	for p := range tps {
		if l.owner[p] == member {
			delete(l.owner, p)
		}
		delete(l.owned[member], p)
	}
}

// revokedAll removes every partition of member (eager revocation, leaving).
func (l *ledger) revokedAll(member string, at time.Time, kind string) {
	l.mu.Lock()
	all := maps.Clone(l.owned[member])
	l.mu.Unlock()
	l.revoked(member, all, at, kind)
}

// consume records that member consumed value from p at offset.
func (l *ledger) consume(member string, p tp, offset int64, value string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.consumed[value] = append(l.consumed[value], consumption{at, member, p, offset})
}

// ownedBy returns a copy of member's partitions.
func (l *ledger) ownedBy(member string) tpSet {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.owned[member])
}

// owners returns a copy of the partition → owner map.
func (l *ledger) owners() map[tp]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return maps.Clone(l.owner)
}

// consumersOf returns who consumed the record with value.
func (l *ledger) consumersOf(value string) []consumption {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.consumed[value])
}

// problems returns the violations recorded so far.
func (l *ledger) problems() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.violations)
}

// history renders the ownership timeline, for failure messages.
func (l *ledger) history() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, e := range l.events {
		fmt.Fprintf(&b, "%s %-10s %-8s %s\n", e.at.Format("15:04:05.000"), e.member, e.kind, e.tps)
	}
	return b.String()
}

// covers reports whether members together own exactly all, each partition
// once (the ledger keeps one owner per partition, so only coverage and
// membership need checking).
func (l *ledger) covers(all tpSet, members []string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.owner) != len(all) {
		return false
	}
	in := make(map[string]bool, len(members))
	for _, m := range members {
		in[m] = true
	}
	for p, o := range l.owner {
		if !all.has(p) || !in[o] {
			return false
		}
	}
	return true
}

// changes counts the ownership events so far; it grows on every change.
func (l *ledger) changes() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.events)
}

// counts returns how many partitions each member owns.
func (l *ledger) counts() map[string]int {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int, len(l.owned))
	for m, s := range l.owned {
		out[m] = len(s)
	}
	return out
}
