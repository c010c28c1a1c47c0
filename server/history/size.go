package history

import (
	"math/bits"
	"unsafe"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// The sizes below are what a Store counts toward its byte bound
// ([WithMaxBytes]): the Go heap a record takes, not its wire size, since
// the bound is about the process's memory. They are estimates from the
// structs' sizes, the lengths and capacities of their strings and slices,
// and the allocator's size classes; TestDecisionSizeMatchesHeap holds
// them to the heap that decisions of every shape really take.

// heap is what an allocation of n bytes takes: n rounded up to the
// allocator's size class, which is never more than an eighth above n
// past 128 bytes.
func heap(n uintptr) int64 {
	switch {
	case n == 0:
		return 0
	case n <= 16:
		return int64((n + 7) &^ 7)
	case n <= 128:
		return int64((n + 15) &^ 15)
	}
	step := uintptr(1) << (bits.Len(uint(n-1)) - 3) // an eighth of the next power of two
	return int64((n + step - 1) &^ (step - 1))
}

func heapOf[T any]() int64 {
	var v T
	return heap(unsafe.Sizeof(v))
}

func stringHeap(s string) int64 { return heap(uintptr(len(s))) }

func sliceHeap[E any](s []E) int64 {
	var e E
	return heap(uintptr(cap(s)) * unsafe.Sizeof(e))
}

var (
	decisionHeap     = heapOf[assigndv1.Decision]()
	timestampHeap    = heapOf[timestamppb.Timestamp]()
	durationHeap     = heapOf[durationpb.Duration]()
	memberHeap       = heapOf[assigndv1.DecisionMember]()
	partitionsHeap   = heapOf[assigndv1.TopicPartitions]()
	reasonCountHeap  = heapOf[assigndv1.MoveReasonCount]()
	moveHeap         = heapOf[assigndv1.PartitionMove]()
	callerHeap       = heapOf[assigndv1.CallerIdentity]()
	loadSummaryHeap  = heapOf[assigndv1.LoadSummary]()
	taskMoveHeap     = heapOf[assigndv1.TaskMove]()
	streamsTaskHeap  = heapOf[assigndv1.StreamsTask]()
	groupHeap        = heapOf[group]()
	groupMapOverhead = int64(64) // a map entry: key, pointer and the map's own slack
)

// decisionSize is the heap d takes, with every message, string and slice
// it points to. Strings shared with other records (member ids repeated
// in every decision of a group) are counted in each: the bound errs on
// the safe side.
func decisionSize(d *assigndv1.Decision) int64 {
	if d == nil {
		return 0
	}
	n := decisionHeap
	for _, s := range []string{d.GroupId, d.LeaderId, d.ProtocolName, d.Assignor, d.PolicyRule, d.PolicyRevision,
		d.UserAgent, d.Replica, d.WorstImbalanceTopic, d.CallerBinding, d.WeightSnapshot, d.LoadSnapshot} {
		n += stringHeap(s)
	}
	n += sliceHeap(d.InputDigest)
	for _, t := range []*timestamppb.Timestamp{d.Time, d.RolloutStarted} {
		if t != nil {
			n += timestampHeap
		}
	}
	for _, t := range []*durationpb.Duration{d.EngineTime, d.CallTime} {
		if t != nil {
			n += durationHeap
		}
	}
	if c := d.Caller; c != nil {
		n += callerHeap + stringHeap(c.Subject) + stringHeap(c.CommonName)
	}
	if l := d.Load; l != nil {
		n += loadSummaryHeap + stringHeap(l.Unit)
	}
	n += sliceHeap(d.Members)
	for _, m := range d.Members {
		n += memberHeap + stringHeap(m.MemberId) + stringHeap(m.GroupInstanceId) + stringHeap(m.Rack) + sliceHeap(m.AssignedByTopic) +
			stringHeap(m.ProcessId)
	}
	n += partitionListHeap(d.WithheldPartitions) + partitionListHeap(d.RevokedPartitions)
	n += stringsHeap(d.Warnings) + stringsHeap(d.Topics)
	n += sliceHeap(d.MoveReasons) + int64(len(d.MoveReasons))*reasonCountHeap
	n += sliceHeap(d.Moves)
	for _, m := range d.Moves {
		n += moveHeap + stringHeap(m.Topic) + stringHeap(m.FromMemberId) + stringHeap(m.ToMemberId)
	}
	n += sliceHeap(d.TaskMoves)
	for _, m := range d.TaskMoves {
		n += taskMoveHeap + stringHeap(m.FromMemberId) + stringHeap(m.ToMemberId)
		if t := m.Task; t != nil {
			n += streamsTaskHeap + stringHeap(t.SubtopologyId)
		}
	}
	return n
}

func partitionListHeap(tps []*assigndv1.TopicPartitions) int64 {
	n := sliceHeap(tps)
	for _, tp := range tps {
		n += partitionsHeap + stringHeap(tp.Topic) + sliceHeap(tp.Partitions)
	}
	return n
}

func stringsHeap(ss []string) int64 {
	n := sliceHeap(ss)
	for _, s := range ss {
		n += stringHeap(s)
	}
	return n
}

// groupSize is the heap of g's own state beside its decisions and
// inputs: the struct, its map entry, and its rings.
func groupSize(g *group) int64 {
	return groupHeap + groupMapOverhead + stringHeap(g.id) + sliceHeap(g.decisions) + sliceHeap(g.shadows) +
		sliceHeap(g.times) + sliceHeap(g.inputs) + sliceHeap(g.lastKeys) + sliceHeap(g.joins)
}

// Bytes is the heap the Store holds as its byte bound counts it:
// decisions, groups' state and inputs.
func (s *Store) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.groupBytes + s.inputBytes
}

// MaxBytes is the Store's byte bound ([WithMaxBytes]).
func (s *Store) MaxBytes() int64 { return s.cfg.maxBytes }
