package saramaassign_test

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

type eventKind int8

const (
	evSetup   eventKind = iota + 1 // a session starts with its claims
	evCleanup                      // a session ends: its claims are released
	evLed                          // a member planned as leader
)

// event is one entry of the timeline, in the order it happened.
type event struct {
	at     time.Time
	kind   eventKind
	member string
	gen    int32
	claims []tp
	detail string
}

// session is a member's current session.
type session struct {
	gen    int32
	claims []tp
}

// offset is one record.
type offset struct {
	tp     tp
	offset int64
}

// timeline records every session, every record produced and consumed,
// and the problems seen while recording: a partition claimed by two
// members at once, a record consumed by a member that did not claim its
// partition.
type timeline struct {
	mu         sync.Mutex
	events     []event
	owner      map[tp]string
	live       map[string]session
	lastChange time.Time
	produce    map[offset]bool // produced → consumed at least once
	consumed   map[offset]int
	issues     []string
}

func newTimeline() *timeline {
	return &timeline{owner: map[tp]string{}, live: map[string]session{}, produce: map[offset]bool{},
		consumed: map[offset]int{}, lastChange: time.Now()}
}

func (tl *timeline) setup(member string, gen int32, claims []tp) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	now := time.Now()
	tl.events = append(tl.events, event{at: now, kind: evSetup, member: member, gen: gen, claims: claims})
	for _, x := range claims {
		if o, ok := tl.owner[x]; ok && o != member {
			tl.issues = append(tl.issues, fmt.Sprintf("generation %d: %s claimed %s while %s still had it", gen, member, x, o))
		}
		tl.owner[x] = member
	}
	tl.live[member] = session{gen: gen, claims: claims}
	tl.lastChange = now
}

func (tl *timeline) cleanup(member string, gen int32) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	now := time.Now()
	tl.events = append(tl.events, event{at: now, kind: evCleanup, member: member, gen: gen})
	for _, x := range tl.live[member].claims {
		if tl.owner[x] == member {
			delete(tl.owner, x)
		}
	}
	delete(tl.live, member)
	tl.lastChange = now
}

func (tl *timeline) led(member, detail string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.events = append(tl.events, event{at: time.Now(), kind: evLed, member: member, gen: -1, detail: detail})
}

func (tl *timeline) consume(member string, gen int32, o offset) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.owner[o.tp] != member {
		tl.issues = append(tl.issues, fmt.Sprintf("generation %d: %s consumed %s@%d without claiming it (owner %q)", gen, member, o.tp, o.offset, tl.owner[o.tp]))
	}
	tl.consumed[o]++
	if _, ok := tl.produce[o]; ok {
		tl.produce[o] = true
	}
}

func (tl *timeline) produced(x tp, off int64) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	o := offset{x, off}
	tl.produce[o] = tl.consumed[o] > 0
}

// sessions returns every member's current session and when the last
// session started or ended.
func (tl *timeline) sessions() (map[string]session, time.Time) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	out := make(map[string]session, len(tl.live))
	for k, v := range tl.live {
		out[k] = v
	}
	return out, tl.lastChange
}

func (tl *timeline) unconsumed() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	n := 0
	for _, done := range tl.produce {
		if !done {
			n++
		}
	}
	return n
}

func (tl *timeline) producedCount() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return len(tl.produce)
}

func (tl *timeline) duplicates() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	n := 0
	for _, c := range tl.consumed {
		if c > 1 {
			n++
		}
	}
	return n
}

func (tl *timeline) problems() []string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return append([]string(nil), tl.issues...)
}

// leaders returns, in order, the members that planned as leader.
func (tl *timeline) leaders() []event {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var out []event
	for _, e := range tl.events {
		if e.kind == evLed {
			out = append(out, e)
		}
	}
	return out
}

// dump renders the session events, for failures.
func (tl *timeline) dump() string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var sb strings.Builder
	if len(tl.events) == 0 {
		return "(no events)"
	}
	start := tl.events[0].at
	for _, e := range tl.events {
		fmt.Fprintf(&sb, "%8.3fs ", e.at.Sub(start).Seconds())
		switch e.kind {
		case evSetup:
			fmt.Fprintf(&sb, "%s setup g%d %v\n", e.member, e.gen, e.claims)
		case evCleanup:
			fmt.Fprintf(&sb, "%s cleanup g%d\n", e.member, e.gen)
		case evLed:
			fmt.Fprintf(&sb, "%s led: %s\n", e.member, e.detail)
		}
	}
	return sb.String()
}
