package loadsource_test

import (
	"math"
	"testing"
	"time"

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
			for _, reason := range []string{"duplicate", "too_old", "over_cap", "invalid", "interval", "late"} {
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
