package history

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// input is the marshaled request of a group's generation, padded to
// about size bytes.
func input(t *testing.T, group string, gen int32, size int) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(&assigndv1.AssignRequest{
		GroupId: group, GenerationId: gen, Topics: []*assigndv1.Topic{{Name: strings.Repeat("t", size), PartitionCount: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func generations(ins []Input) []int32 {
	var gens []int32
	for _, in := range ins {
		gens = append(gens, in.Generation)
	}
	return gens
}

func TestInputsBounded(t *testing.T) {
	// Each input counts about 300 + 96 bytes: two fit in 1000.
	s, err := New(WithInputs(2, 1000), WithMaxGroups(2))
	if err != nil {
		t.Fatal(err)
	}
	rec := func(group string, gen int32) {
		s.RecordInput(decision(group, call{at: time.Duration(gen) * time.Second, gen: gen}), input(t, group, gen, 300))
	}
	for gen := int32(1); gen <= 3; gen++ {
		rec("a", gen)
	}
	if got := generations(s.Inputs("a")); fmt.Sprint(got) != "[2 3]" {
		t.Fatalf("a's inputs: generations %v, want [2 3] (the last 2, oldest first)", got)
	}
	rec("b", 1) // over the budget: a's oldest goes
	if got := generations(s.Inputs("a")); fmt.Sprint(got) != "[3]" {
		t.Errorf("a's inputs after b's: generations %v, want [3]", got)
	}
	if n := s.InputBytes(); n > 1000 || n < 600 {
		t.Errorf("inputs take %d bytes, want two of about 400 (at most 1000)", n)
	}
	latest := map[string]int32{}
	s.LatestInputs(func(group string, req *assigndv1.AssignRequest) bool {
		if req.GetGroupId() != group {
			t.Errorf("LatestInputs gave %s the request of %s", group, req.GetGroupId())
		}
		latest[group] = req.GetGenerationId()
		return true
	})
	if fmt.Sprint(latest) != "map[a:3 b:1]" {
		t.Errorf("LatestInputs: %v, want a:3 b:1", latest)
	}
	in := s.Inputs("b")[0]
	if req, err := in.Decode(); err != nil || req.GetGenerationId() != 1 {
		t.Errorf("Decode: %v, %v", req, err)
	}

	s.RecordInput(decision("c", call{gen: 1}), input(t, "c", 1, 2000)) // larger than the budget: not kept; evicts a
	if s.Inputs("c") != nil || s.Inputs("a") != nil {
		t.Errorf("c's oversized input kept (%d), or evicted a's still there (%d)", len(s.Inputs("c")), len(s.Inputs("a")))
	}
	if n := s.InputBytes(); n != int64(len(input(t, "b", 1, 300)))+inputOverhead {
		t.Errorf("inputs take %d bytes after a's eviction, want b's only", n)
	}
	stop := 0
	s.LatestInputs(func(string, *assigndv1.AssignRequest) bool { stop++; return false })
	if stop != 1 {
		t.Errorf("LatestInputs went on after false: %d calls", stop)
	}

	none, _ := New(WithInputs(0, DefaultInputBytes))
	none.RecordInput(decision("a", call{gen: 1}), input(t, "a", 1, 10))
	if none.Inputs("a") != nil {
		t.Error("WithInputs(0, ...) kept an input")
	}
}

type capture struct {
	mu     sync.Mutex
	ds     []*assigndv1.Decision
	inputs [][]byte
}

func (c *capture) Publish(d *assigndv1.Decision, input []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ds, c.inputs = append(c.ds, d), append(c.inputs, input)
}

// A replica's records are stamped and published; records read from the
// log are applied once, this run's own skipped, shadows kept apart, and
// gaps listed per replica run.
func TestApplyShared(t *testing.T) {
	pub := &capture{}
	s, err := New(WithReplica("r1"), WithIncarnation(7), WithPublisher(pub), WithClock(func() time.Time { return t0.Add(time.Minute) }))
	if err != nil {
		t.Fatal(err)
	}
	in := input(t, "g", 1, 10)
	own := decision("g", call{gen: 1})
	s.RecordInput(own, in)
	if own.GetReplica() != "r1" || own.GetIncarnation() != 7 || own.GetSequence() != 1 {
		t.Errorf("stamped %s/%d #%d, want r1/7 #1", own.GetReplica(), own.GetIncarnation(), own.GetSequence())
	}
	if len(pub.ds) != 1 || pub.ds[0] != own || !bytes.Equal(pub.inputs[0], in) {
		t.Fatalf("published %d records, want the decision and its input", len(pub.ds))
	}

	other := func(replica string, inc, seq uint64, gen int32, at time.Duration) *assigndv1.HistoryRecord {
		d := decision("g", call{at: at, gen: gen})
		d.Replica, d.Incarnation, d.Sequence = replica, inc, seq
		return &assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Decision{Decision: d}, Input: input(t, "g", gen, 10)}
	}
	s.Apply(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Decision{Decision: own}}) // read back: skipped
	s.Apply(other("r2", 9, 1, 2, time.Second))
	s.Apply(other("r2", 9, 1, 2, time.Second)) // delivered twice: once
	s.Apply(other("r1", 5, 3, 0, -time.Hour))  // r1's earlier run: kept, in time order
	shadow := other("r2", 9, 2, 2, 2*time.Second)
	shadow.GetDecision().Shadow = true
	s.Apply(shadow)
	s.Apply(shadow)

	sum, ds, _ := s.Get("g", 0)
	if len(ds) != 3 || ds[0].GetReplica() != "r2" || !proto.Equal(ds[1], own) || ds[2].GetIncarnation() != 5 || sum.GetDecisionsRecorded() != 3 {
		t.Fatalf("decisions %v, recorded %d; want r2's, r1/7's, r1/5's, 3 recorded", ds, sum.GetDecisionsRecorded())
	}
	if sh := s.Shadows("g", 0); len(sh) != 1 || !sh[0].GetShadow() {
		t.Errorf("shadows %v, want the one", sh)
	}
	if sum.GetRebalancesLastHour() != 2 {
		t.Errorf("rebalances in the last hour %d, want 2 (the shadow and the hour-old decision not counted)", sum.GetRebalancesLastHour())
	}
	if got := generations(s.Inputs("g")); fmt.Sprint(got) != "[0 1 2]" {
		t.Errorf("inputs of generations %v, want [0 1 2] in time order", got)
	}

	gap := &assigndv1.HistoryGap{Replica: "r2", Incarnation: 9, Sequence: 3, Dropped: 5, Groups: []string{"g"},
		FirstDropped: timestamppb.New(t0), LastDropped: timestamppb.New(t0.Add(time.Second)), Reason: "buffer full"}
	s.Apply(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Gap{Gap: gap}})
	s.Apply(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Gap{Gap: gap}})
	s.Apply(&assigndv1.HistoryRecord{Record: &assigndv1.HistoryRecord_Gap{Gap: &assigndv1.HistoryGap{Replica: "r1", Incarnation: 7, Sequence: 9, Dropped: 1}}}) // own: skipped
	var got []string
	for _, r := range s.Replicas() {
		got = append(got, fmt.Sprintf("%s/%d records=%d dropped=%d gaps=%d self=%t", r.GetReplica(), r.GetIncarnation(), r.GetRecords(), r.GetDropped(), len(r.GetGaps()), r.GetSelf()))
	}
	want := "[r1/5 records=1 dropped=0 gaps=0 self=false r1/7 records=1 dropped=0 gaps=0 self=true r2/9 records=3 dropped=5 gaps=1 self=false]"
	if fmt.Sprint(got) != want {
		t.Errorf("replicas\n%v\nwant\n%v", got, want)
	}
}
