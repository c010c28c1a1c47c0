package history

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// FuzzApply feeds records read from a shared topic, whatever their
// content, to a small Store: applying and reading them never panics and
// the bounds hold.
func FuzzApply(f *testing.F) {
	seed := func(rec *assigndv1.HistoryRecord) {
		b, _ := proto.Marshal(rec)
		f.Add(b)
	}
	d := decision("g", call{gen: 3, withheld: 2, followup: true})
	d.Replica, d.Incarnation, d.Sequence = "r", 1, 1
	seed(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Decision{Decision: d}, Input: []byte{8, 1}})
	old := proto.CloneOf(d)
	old.Time = timestamppb.New(time.Unix(-90, 0)) // a minute before 1970: no minute bucket
	seed(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Decision{Decision: old}})
	seed(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Gap{Gap: &assigndv1.HistoryGap{Replica: "r", Dropped: 3,
		LastDropped: timestamppb.New(t0), Groups: []string{"g"}}}})
	f.Fuzz(func(t *testing.T, b []byte) {
		rec := new(assigndv1.HistoryRecord)
		if proto.Unmarshal(b, rec) != nil {
			return
		}
		s, _ := New(WithMaxGroups(2), WithDecisionsPerGroup(2), WithInputs(1, 1024), WithClock(func() time.Time { return t0 }))
		for range 3 {
			s.Apply(rec)
		}
		if d := rec.GetDecision(); d != nil {
			d2 := proto.CloneOf(d)
			d2.Sequence++
			s.Apply(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Decision{Decision: d2}})
			s.Get(d.GetGroupId(), 0)
			s.Shadows(d.GetGroupId(), 0)
			s.Inputs(d.GetGroupId())
		}
		if _, err := s.List(Query{}); err != nil {
			t.Fatal(err)
		}
		s.SignalCounts()
		s.Replicas()
		s.LatestInputs(func(string, *assigndv1.AssignRequest) bool { return true })
		if s.Len() > 2 || s.InputBytes() > 1024 {
			t.Fatalf("%d groups, %d input bytes: over the bounds", s.Len(), s.InputBytes())
		}
	})
}
