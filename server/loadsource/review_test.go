package loadsource_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/loadsource"
)

// Every record the book takes nothing from is counted by reason, and a
// record's fate depends only on the records before it and its own
// fields: every replica reading the topic ignores the same ones.
func TestBookIgnoredReasons(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []loadsource.BookOption
		before []*assigndv1.WeightSnapshot
		rec    *assigndv1.WeightSnapshot
		at     time.Time // the record's timestamp; zero: unknown
		reason string    // "" when taken whole
	}{
		{name: "taken", rec: snap("c", base, "a", map[string][]float64{"t": {1}})},
		{name: "duplicate", before: []*assigndv1.WeightSnapshot{snap("c", base, "a", map[string][]float64{"t": {1}})},
			rec: snap("c", base, "b", map[string][]float64{"t": {2}}), reason: "duplicate"},
		{name: "no epoch", rec: &assigndv1.WeightSnapshot{Cluster: "c", IntervalMs: iv.Milliseconds()}, reason: "invalid"},
		{name: "NaN rate", rec: snap("c", base, "a", map[string][]float64{"t": {nan()}}), reason: "invalid"},
		// Replicas with another --load-interval: their epochs are never
		// mixed with this replica's.
		{name: "another interval", opts: []loadsource.BookOption{loadsource.WithEpochInterval(2 * iv)},
			rec: snap("c", base, "a", map[string][]float64{"t": {1}}), reason: "interval"},
		{name: "this interval", opts: []loadsource.BookOption{loadsource.WithEpochInterval(iv)},
			rec: snap("c", base, "a", map[string][]float64{"t": {1}})},
		// Written after the epoch ended and the margin (2 s) passed.
		{name: "late", rec: snap("c", base, "a", map[string][]float64{"t": {1}}), at: base.Add(iv + 2*time.Second + time.Millisecond), reason: "late"},
		{name: "just in time", rec: snap("c", base, "a", map[string][]float64{"t": {1}}), at: base.Add(iv + 2*time.Second)},
		// A late record older than the window kept.
		{name: "too old", opts: []loadsource.BookOption{loadsource.WithKeep(2)},
			before: []*assigndv1.WeightSnapshot{snap("c", base.Add(iv), "a", map[string][]float64{"t": {1}}), snap("c", base.Add(2*iv), "a", map[string][]float64{"t": {1}})},
			rec:    snap("c", base, "a", map[string][]float64{"t": {1}}), reason: "too_old"},
		{name: "rates over the epoch's cap", opts: []loadsource.BookOption{loadsource.WithMaxRates(3)},
			before: []*assigndv1.WeightSnapshot{snap("c", base, "a", map[string][]float64{"t": {1, 1}})},
			rec:    snap("c", base, "a", map[string][]float64{"u": {1, 1}}), reason: "over_cap"},
		{name: "clusters over the cap", opts: []loadsource.BookOption{loadsource.WithMaxClusters(1)},
			before: []*assigndv1.WeightSnapshot{snap("c", base, "a", map[string][]float64{"t": {1}})},
			rec:    snap("d", base, "a", map[string][]float64{"t": {1}}), reason: "over_cap"},
		// Partly taken: counted for what was dropped.
		{name: "partly over the cap", opts: []loadsource.BookOption{loadsource.WithMaxRates(2)},
			rec: snap("c", base, "a", map[string][]float64{"t": {1}, "u": {1, 1}}), reason: "over_cap"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := sharedBook(tc.opts...)
			for _, r := range tc.before {
				b.Apply(r)
			}
			b.ApplyAt(tc.rec, tc.at)
			for _, reason := range []string{"duplicate", "too_old", "over_cap", "invalid", "interval", "late", "future"} {
				want := int64(0)
				if reason == tc.reason {
					want = 1
				}
				if got := b.IgnoredBy(reason); got != want {
					t.Errorf("ignored %s: %d, want %d", reason, got, want)
				}
			}
		})
	}
}

// Two intervals' epochs that start at the same moment are kept apart:
// a book without a fixed interval never merges their topics.
func TestBookIntervalsNeverMix(t *testing.T) {
	b, _ := sharedBook()
	b.Apply(snap("c", base, "a", map[string][]float64{"t": {1}}))
	long := snap("c", base, "b", map[string][]float64{"u": {2}})
	long.IntervalMs = 2 * iv.Milliseconds()
	b.Apply(long)
	if _, _, err := b.Weights("c", []string{"t", "u"}, base.Add(time.Hour), 2*time.Hour); err == nil {
		t.Fatal("planned with t and u from epochs of different intervals")
	}
	if b.Ignored() != 0 {
		t.Fatalf("%d ignored, want 0", b.Ignored())
	}
}

func nan() float64 { return math.NaN() }

// The cap on clusters counts the clusters with recent epochs: one whose
// newest epoch is past the window kept, as seen from a newer record
// (a cluster the policy no longer names), gives its slot up.
func TestBookForgetsStaleClusters(t *testing.T) {
	b, _ := sharedBook(loadsource.WithMaxClusters(1), loadsource.WithKeep(2))
	b.Apply(snap("old", base, "a", map[string][]float64{"t": {1}}))
	b.Apply(snap("new", base.Add(2*iv), "a", map[string][]float64{"t": {1}})) // "old" still within two intervals
	if got := b.IgnoredBy("over_cap"); got != 1 {
		t.Fatalf("%d over the cap, want 1: old is recent", got)
	}
	b.Apply(snap("new", base.Add(3*iv), "a", map[string][]float64{"t": {1}}))
	if got := b.IgnoredBy("over_cap"); got != 1 || len(b.Epochs("old")) != 0 || len(b.Epochs("new")) != 1 {
		t.Fatalf("over the cap %d, epochs old %v new %v; want old forgotten, new taken", got, b.Epochs("old"), b.Epochs("new"))
	}
}

// listing is a fake Offsets: the end offsets of "t"'s partitions, as set
// between samples.
type listing struct{ ends []int64 }

func (l *listing) list(context.Context, ...string) (kadm.ListedOffsets, error) {
	ps := map[int32]kadm.ListedOffset{}
	for p, o := range l.ends {
		if o >= 0 { // -1: the broker did not answer for it
			ps[int32(p)] = kadm.ListedOffset{Topic: "t", Partition: int32(p), Offset: o}
		}
	}
	return kadm.ListedOffsets{"t": ps}, nil
}

// A topic that gains partitions between epochs: each epoch has the
// partition count of its samples; until the new partitions have a rate
// (two samples) the newest epoch lacks the topic and calls plan with the
// older one, of the old count. A partition missing from one listing (a
// broker did not answer) does not shrink the topic.
func TestSourceTopicGrows(t *testing.T) {
	ctx := context.Background()
	l := &listing{ends: []int64{0, 0}}
	b := loadsource.NewBook()
	src := loadsource.New(l.list, loadsource.WithInterval(iv), loadsource.WithStaleAfter(time.Hour), loadsource.WithBook(b, ""))
	_, _, _ = src.SnapshotWeights([]string{"t"}, base)
	weights := func(at time.Time) ([]float64, string) {
		t.Helper()
		ws, id, err := src.SnapshotWeights([]string{"t"}, at)
		if err != nil {
			t.Fatalf("at %s: %v", at, err)
		}
		return ws[0].Weights, id
	}
	for i, step := range []struct {
		ends   []int64
		want   int // rates planned with
		wantEp int // epoch planned with, in intervals after base
	}{
		{[]int64{0, 0}, -1, 0},      // one sample: no rate yet
		{[]int64{10, 20}, 2, 1},     // two partitions
		{[]int64{20, 40, 0}, 2, 1},  // a third appears: not ready, the older epoch
		{[]int64{30, 60, 10}, 3, 3}, // the third has a rate
		{[]int64{40, 80, -1}, 3, 4}, // no answer for the third: still three
	} {
		l.ends = step.ends
		at := base.Add(time.Duration(i) * iv)
		if err := src.Sample(ctx, at); err != nil {
			t.Fatal(err)
		}
		if step.want < 0 {
			continue
		}
		ws, id := weights(at)
		if len(ws) != step.want || id != loadsource.SnapshotID("", base.Add(time.Duration(step.wantEp)*iv).UnixMilli()) {
			t.Fatalf("sample %d: %d rates from %s, want %d from epoch %d", i, len(ws), id, step.want, step.wantEp)
		}
	}
}

// A replica whose clock runs ahead publishes epochs of the future; taken,
// they would be the newest kept and push every real epoch out (each real
// one then too old): they are refused, and the real ones still count.
func TestBookRefusesFutureEpochs(t *testing.T) {
	b, _ := sharedBook(loadsource.WithKeep(2))
	now := time.Now().Truncate(iv)
	for i := range 3 {
		ahead := now.Add(time.Hour + time.Duration(i)*iv)
		b.ApplyAt(snap("c", ahead, "skewed", map[string][]float64{"t": {9}}), ahead.Add(time.Second))
	}
	past := now.Add(-2 * iv)
	b.ApplyAt(snap("c", past, "a", map[string][]float64{"t": {1}}), past.Add(time.Second))
	if got := b.IgnoredBy("future"); got != 3 {
		t.Fatalf("%d refused as future, want 3", got)
	}
	ws, _, err := b.Weights("c", []string{"t"}, time.Now(), time.Hour)
	if err != nil || ws[0].Weights[0] != 1 {
		t.Fatalf("weights %v, %v; want the real epoch's 1", ws, err)
	}
}
