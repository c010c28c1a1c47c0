package history

import (
	"cmp"
	"crypto/rand"
	"encoding/binary"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// maxRuns bounds the replica runs a Store keeps track of; beyond it the
// run with the oldest record is forgotten. A fleet restarting its
// replicas makes a run per restart.
const maxRuns = 1024

// gapsPerRun is how many gaps a run keeps, newest first.
const gapsPerRun = 8

// runKey is one run of one replica.
type runKey struct {
	replica     string
	incarnation uint64
}

// replicaRun is what a Store knows of one replica run.
type replicaRun struct {
	key     runKey
	records int64
	last    time.Time
	dropped int64
	gaps    []*assigndv1.HistoryGap // newest first
}

func (r *replicaRun) note(at time.Time) {
	r.records++
	if at.After(r.last) {
		r.last = at
	}
}

// run returns the run's state under s.mu, adding it (and forgetting the
// stalest run when there are too many).
func (s *Store) run(replica string, incarnation uint64) *replicaRun {
	k := runKey{replica, incarnation}
	if s.lastRun != nil && s.lastRun.key == k {
		return s.lastRun // a run's records come in streaks: this one's own, a log's
	}
	if r := s.replicas[k]; r != nil {
		s.lastRun = r
		return r
	}
	if len(s.replicas) >= maxRuns {
		var stalest *replicaRun
		for _, r := range s.replicas {
			if stalest == nil || r.last.Before(stalest.last) {
				stalest = r
			}
		}
		delete(s.replicas, stalest.key)
	}
	r := &replicaRun{key: k}
	s.replicas[k] = r
	s.lastRun = r
	return r
}

// NoteGap records a gap: records a replica run could not share. A
// [Publisher] calls it for this replica's gaps (stamped with
// [Store.Replica] and [Store.NextSequence]); [Store.Apply] for others'. A
// gap already held is ignored. g must not be modified afterwards.
func (s *Store) NoteGap(g *assigndv1.HistoryGap) {
	at := g.GetLastDropped().AsTime()
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.run(g.GetReplica(), g.GetIncarnation())
	for _, k := range r.gaps {
		if k.GetSequence() == g.GetSequence() {
			return
		}
	}
	r.note(at)
	r.dropped += g.GetDropped()
	r.gaps = slices.Insert(r.gaps, 0, g)
	slices.SortStableFunc(r.gaps, func(a, b *assigndv1.HistoryGap) int {
		return b.GetLastDropped().AsTime().Compare(a.GetLastDropped().AsTime())
	})
	if len(r.gaps) > gapsPerRun {
		r.gaps = r.gaps[:gapsPerRun]
	}
}

// Replicas lists the replica runs whose records this Store holds, sorted
// by replica and incarnation, each with the records it reported dropped
// and its latest gaps.
func (s *Store) Replicas() []*assigndv1.HistoryReplica {
	s.mu.Lock()
	out := make([]*assigndv1.HistoryReplica, 0, len(s.replicas))
	for k, r := range s.replicas {
		hr := &assigndv1.HistoryReplica{
			Replica: k.replica, Incarnation: k.incarnation, Records: r.records, Dropped: r.dropped,
			Self: s.own(k.replica, k.incarnation),
		}
		if !r.last.IsZero() {
			hr.LastRecord = timestamppb.New(r.last)
		}
		for _, g := range r.gaps {
			hr.Gaps = append(hr.Gaps, proto.CloneOf(g))
		}
		out = append(out, hr)
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b *assigndv1.HistoryReplica) int {
		if c := strings.Compare(a.GetReplica(), b.GetReplica()); c != 0 {
			return c
		}
		return cmp.Compare(a.GetIncarnation(), b.GetIncarnation())
	})
	return out
}

// newIncarnation draws a run's incarnation: random, never 0.
func newIncarnation() uint64 {
	var b [8]byte
	for {
		_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24)
		if n := binary.BigEndian.Uint64(b[:]); n != 0 {
			return n
		}
	}
}
