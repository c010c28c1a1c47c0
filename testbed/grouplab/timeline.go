package grouplab

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/assignd/assignd/assign/assigntest"
)

// TP names one partition. It is the engine tests' type
// ([assigntest.TP]): one topic-partition type for every test of the
// module.
type TP = assigntest.TP

func compareTP(a, b TP) int {
	return cmp.Or(cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}

// EventKind says what an Event records.
type EventKind uint8

const (
	// EventStarted: a member process started and is joining the group.
	EventStarted EventKind = iota + 1
	// EventLeaving: a member is shutting down gracefully (it commits,
	// revokes everything and sends LeaveGroup).
	EventLeaving
	// EventKilled: a member died without leaving: it stopped consuming and
	// its connections were cut; the broker notices at its session timeout.
	EventKilled
	// EventAssigned: OnPartitionsAssigned, with the partitions newly
	// assigned (kgo calls it after every SyncGroup, possibly with none).
	EventAssigned
	// EventRevoked: OnPartitionsRevoked, after the member committed what it
	// had consumed.
	EventRevoked
	// EventLost: OnPartitionsLost (nothing could be committed).
	EventLost
	// EventBalanced: a shim member balanced the group as leader.
	EventBalanced
	// EventLeaderSync: the broker received a SyncGroup carrying
	// assignments, i.e. from a member that balanced as leader.
	EventLeaderSync
	// EventAssigndDown and EventAssigndUp: assignd was stopped or started.
	EventAssigndDown
	EventAssigndUp
	// EventSettled: the group settled (see Lab.Settle).
	EventSettled
	// EventNote: a phase marker written by the scenario.
	EventNote
)

var eventNames = map[EventKind]string{
	EventStarted: "started", EventLeaving: "leaving", EventKilled: "killed",
	EventAssigned: "assigned", EventRevoked: "revoked", EventLost: "lost",
	EventBalanced: "balanced", EventLeaderSync: "leader-sync",
	EventAssigndDown: "assignd-down", EventAssigndUp: "assignd-up",
	EventSettled: "settled", EventNote: "note",
}

func (k EventKind) String() string {
	if s, ok := eventNames[k]; ok {
		return s
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is one entry of the timeline.
type Event struct {
	// Seq orders events totally: they were recorded under one lock.
	Seq int
	// At is the time since the lab started.
	At   time.Duration
	Kind EventKind
	// Member is the member's name (one name per incarnation).
	Member string
	// MemberID is the id the coordinator gave the member, when known.
	MemberID string
	// Generation of the group when the event happened (-1 when unknown).
	Generation int32
	// Partitions the event concerns, sorted.
	Partitions []TP
	// Assignments are, for EventLeaderSync, the bytes the leader sent per
	// member id.
	Assignments map[string][]byte
	// Detail is free text: a balance's source, a note's text, an error.
	Detail string
}

// Consumption is one record a member processed.
type Consumption struct {
	Member string
	// Epoch is the Seq of the EventAssigned that gave Member the
	// partition; 0 when the member did not own it by its callbacks.
	Epoch int
}

// Offset names one record.
type Offset struct {
	TP
	Offset int64
}

// Timeline is the lab's shared, ordered record. It is safe for concurrent
// use.
type Timeline struct {
	start time.Time

	mu       sync.Mutex
	events   []Event
	produced map[TP]int64 // next offset not yet produced (all below were)
	consumed map[Offset][]Consumption
	// committed maps an ownership epoch to the offset its member committed
	// through when it revoked the partition (absent: never committed).
	committed map[int]map[TP]int64
}

func newTimeline() *Timeline {
	return &Timeline{
		start: time.Now(), produced: map[TP]int64{}, consumed: map[Offset][]Consumption{},
		committed: map[int]map[TP]int64{},
	}
}

// add appends e, stamping Seq and At, and returns its Seq.
func (tl *Timeline) add(e Event) int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return tl.addLocked(e)
}

func (tl *Timeline) addLocked(e Event) int {
	e.Seq = len(tl.events) + 1
	e.At = time.Since(tl.start)
	slices.SortFunc(e.Partitions, compareTP)
	tl.events = append(tl.events, e)
	return e.Seq
}

// Note writes a phase marker.
func (tl *Timeline) Note(format string, args ...any) {
	tl.add(Event{Kind: EventNote, Generation: -1, Detail: fmt.Sprintf(format, args...)})
}

// Events returns a copy of every event so far.
func (tl *Timeline) Events() []Event {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return slices.Clone(tl.events)
}

func (tl *Timeline) produce(tp TP, offset int64) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if offset+1 > tl.produced[tp] {
		tl.produced[tp] = offset + 1
	}
}

func (tl *Timeline) consume(o Offset, c Consumption) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.consumed[o] = append(tl.consumed[o], c)
}

func (tl *Timeline) commit(epoch int, tp TP, through int64) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.committed[epoch] == nil {
		tl.committed[epoch] = map[TP]int64{}
	}
	tl.committed[epoch][tp] = through
}

// Produced is the number of records produced so far.
func (tl *Timeline) Produced() int64 {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	var n int64
	for _, next := range tl.produced {
		n += next
	}
	return n
}

// unconsumed counts produced records nobody consumed yet.
func (tl *Timeline) unconsumed() int {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	n := 0
	for tp, next := range tl.produced {
		for off := range next {
			if len(tl.consumed[Offset{tp, off}]) == 0 {
				n++
			}
		}
	}
	return n
}
