package history

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Store keeps the last decisions of the groups an assignd replica serves.
// It is safe for concurrent use.
type Store struct {
	cfg config

	mu     sync.Mutex
	groups map[string]*group
	// lru is a ring through group.prev/next: lru.next is the most recently
	// seen group, lru.prev the least.
	lru group
}

// group is one group's state. Its fields are written under Store.mu only.
type group struct {
	id         string
	prev, next *group

	// decisions is a ring of the last decisions; head is where the next
	// one goes, n how many it holds.
	decisions []*assigndv1.Decision
	head, n   int
	recorded  int64
	// times is a ring of the last StormCap decision times, in Unix
	// nanoseconds (8 bytes each, not time.Time's 24).
	times     []int64
	timesHead int

	// cooperativeUntil is when the group last called with
	// cooperative-sticky (zero: never).
	cooperativeUntil time.Time

	// shadow is the group's latest shadow comparison, nil when none.
	shadow *assigndv1.ShadowComparison

	// lastKeys are the member keys of the latest decision (see
	// memberKeys); joins is a ring of the last StormCap joins, allocated
	// at the first.
	lastKeys  []uint64
	joins     []joinEvent
	joinsHead int
}

// New returns an empty Store.
func New(opts ...Option) (*Store, error) {
	cfg := config{decisions: DefaultDecisionsPerGroup, groups: DefaultMaxGroups, now: time.Now}
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.decisions < 1 || cfg.groups < 1 {
		return nil, fmt.Errorf("history: decisions per group (%d) and groups (%d) must be at least 1", cfg.decisions, cfg.groups)
	}
	if cfg.now == nil {
		return nil, errors.New("history: WithClock needs a clock")
	}
	cfg.thresholds = cfg.thresholds.withDefaults()
	s := &Store{cfg: cfg, groups: make(map[string]*group)}
	s.lru.prev, s.lru.next = &s.lru, &s.lru
	return s, nil
}

// Record adds d, the latest decision of d.GroupId. d must not be modified
// afterwards: readers share it. The work under the lock is constant: a map
// lookup, a list move, two ring writes and the signals' state.
func (s *Store) Record(d *assigndv1.Decision) {
	at := d.GetTime().AsTime()
	keys := memberKeys(d) // hashed outside the lock
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[d.GetGroupId()]
	if g == nil {
		g = s.admit(d.GetGroupId())
	} else {
		g.unlink()
	}
	g.linkAfter(&s.lru)
	if d.GetProtocolName() == cooperativeSticky && at.After(g.cooperativeUntil) {
		g.cooperativeUntil = at
	}
	g.noteJoins(keys, at)
	g.insert(d, at)
	g.recorded++
	g.times[g.timesHead] = at.UnixNano()
	g.timesHead = (g.timesHead + 1) % len(g.times)
}

// RecordShadow keeps c as its group's latest shadow comparison. c must
// not be modified afterwards. A comparison of a group the store does not
// remember (its first decision not recorded yet, or evicted) is dropped:
// a shadow never admits a group.
func (s *Store) RecordShadow(c *assigndv1.ShadowComparison) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.groups[c.GetGroupId()]; g != nil && (g.shadow == nil || !c.GetTime().AsTime().Before(g.shadow.GetTime().AsTime())) {
		g.shadow = c
	}
}

// Shadow returns the latest shadow comparison of a group, nil when none.
func (s *Store) Shadow(id string) *assigndv1.ShadowComparison {
	s.mu.Lock()
	defer s.mu.Unlock()
	if g := s.groups[id]; g != nil {
		return g.shadow
	}
	return nil
}

// admit adds a group, evicting the least recently seen one when full.
func (s *Store) admit(id string) *group {
	var g *group
	if len(s.groups) >= s.cfg.groups {
		// Reuse the evicted group's rings: recording a new group at the
		// bound allocates nothing but its map entry.
		g = s.lru.prev
		g.unlink()
		delete(s.groups, g.id)
		clear(g.decisions)
		clear(g.times)
		clear(g.joins)
		*g = group{decisions: g.decisions, times: g.times, joins: g.joins}
	} else {
		g = &group{
			decisions: make([]*assigndv1.Decision, s.cfg.decisions),
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

// latest is the newest decision, nil when none.
func (g *group) latest() *assigndv1.Decision {
	if g.n == 0 {
		return nil
	}
	return g.decisions[(g.head-1+len(g.decisions))%len(g.decisions)]
}

// insert adds d to the ring in time order. Decisions are recorded once
// their response is written, so a call's record may come just after the
// next call's: d then moves back past the newer ones (a step or two; at
// most the ring's size).
func (g *group) insert(d *assigndv1.Decision, at time.Time) {
	size := len(g.decisions)
	g.decisions[g.head] = d
	j := g.head
	g.head = (g.head + 1) % size
	g.n = min(g.n+1, size)
	for range g.n - 1 {
		older := (j - 1 + size) % size
		if !g.decisions[older].GetTime().AsTime().After(at) {
			break
		}
		g.decisions[j], g.decisions[older] = g.decisions[older], d
		j = older
	}
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
	id               string
	decisions        []*assigndv1.Decision // newest first
	recorded         int64
	times            []int64
	joins            []joinEvent
	cooperativeUntil time.Time
}

// snapshot copies g's state and the pointers to its decisions.
func (g *group) snapshot() snapshot {
	ds := make([]*assigndv1.Decision, g.n)
	for i := range ds {
		ds[i] = g.decisions[(g.head-1-i+2*len(g.decisions))%len(g.decisions)]
	}
	return snapshot{
		id: g.id, decisions: ds, recorded: g.recorded, times: append([]int64(nil), g.times...), joins: slices.Clone(g.joins),
		cooperativeUntil: g.cooperativeUntil,
	}
}
