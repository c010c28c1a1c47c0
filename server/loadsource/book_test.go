package loadsource_test

import (
	"errors"
	"slices"
	"testing"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/loadsource"
)

// recorder is a Publisher that keeps what it is handed, in order.
type recorder struct{ recs []*assigndv1.WeightSnapshot }

func (r *recorder) PublishWeights(ws *assigndv1.WeightSnapshot) { r.recs = append(r.recs, ws) }

const iv = 10 * time.Second

// base is the start of an epoch: a multiple of iv in Unix time.
var base = time.UnixMilli(1_700_000_000_000)

func snap(cluster string, start time.Time, replica string, topics map[string][]float64) *assigndv1.WeightSnapshot {
	ws := &assigndv1.WeightSnapshot{Cluster: cluster, EpochUnixMs: start.UnixMilli(), IntervalMs: iv.Milliseconds(), Replica: replica}
	names := make([]string, 0, len(topics))
	for t := range topics {
		names = append(names, t)
	}
	slices.Sort(names)
	for _, t := range names {
		ws.Topics = append(ws.Topics, &assigndv1.TopicRates{Topic: t, Rates: topics[t]})
	}
	return ws
}

func sharedBook(opts ...loadsource.BookOption) (*loadsource.Book, *recorder) {
	b := loadsource.NewBook(append([]loadsource.BookOption{loadsource.WithMargin(2 * time.Second)}, opts...)...)
	r := &recorder{}
	b.Share(r, "me")
	return b, r
}

// For a (cluster, epoch, topic) the first record read wins: a later
// record of the same epoch, from another replica with other rates, only
// adds topics the epoch did not have.
func TestBookFirstRecordWins(t *testing.T) {
	b, _ := sharedBook()
	b.Apply(snap("", base, "a", map[string][]float64{"t": {1, 2}}))
	b.Apply(snap("", base, "b", map[string][]float64{"t": {9, 9}, "u": {5}}))
	b.Apply(snap("", base, "a", map[string][]float64{"t": {1, 2}})) // a duplicate
	now := base.Add(iv + 2*time.Second)
	ws, id, err := b.Weights("", []string{"t", "u"}, now, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ws[0].Weights, []float64{1, 2}) || !slices.Equal(ws[1].Weights, []float64{5}) {
		t.Fatalf("weights %v %v, want [1 2] (the first record) and [5]", ws[0].Weights, ws[1].Weights)
	}
	if want := "@2023-11-14T22:13:20Z"; id != want {
		t.Fatalf("id %q, want %q", id, want)
	}
}

// The snapshot planned with is the newest whose epoch ended at least the
// margin ago; a newer one waits for it, so that every caught-up replica
// has it; an older one with every topic stands in when the newest lacks
// one.
func TestBookMargin(t *testing.T) {
	b, _ := sharedBook()
	e0, e1 := base, base.Add(iv)
	b.Apply(snap("c", e0, "a", map[string][]float64{"t": {1}, "u": {1}}))
	b.Apply(snap("c", e1, "a", map[string][]float64{"t": {2}}))
	for _, tc := range []struct {
		name   string
		now    time.Time
		topics []string
		want   string // snapshot id; "" for an error
	}{
		{"inside the first epoch", e0.Add(time.Second), []string{"t"}, ""},
		{"first epoch ended, margin not passed", e1.Add(time.Second), []string{"t"}, ""},
		{"first epoch past the margin", e1.Add(2 * time.Second), []string{"t"}, loadsource.SnapshotID("c", e0.UnixMilli())},
		{"second epoch not past its margin", e1.Add(iv + time.Second), []string{"t"}, loadsource.SnapshotID("c", e0.UnixMilli())},
		{"second epoch past its margin", e1.Add(iv + 2*time.Second), []string{"t"}, loadsource.SnapshotID("c", e1.UnixMilli())},
		{"second epoch lacks u: the first has both", e1.Add(iv + 2*time.Second), []string{"t", "u"}, loadsource.SnapshotID("c", e0.UnixMilli())},
		{"no epoch has v", e1.Add(iv + 2*time.Second), []string{"v"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, id, err := b.Weights("c", tc.topics, tc.now, time.Hour)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("snapshot %q, want an error", id)
				}
				return
			}
			if err != nil || id != tc.want {
				t.Fatalf("snapshot %q, %v; want %q", id, err, tc.want)
			}
		})
	}
	if _, _, err := b.Weights("c", []string{"v"}, e1.Add(iv+2*time.Second), time.Hour); !errors.Is(err, loadsource.ErrNoSnapshot) {
		t.Fatalf("missing topic: %v, want ErrNoSnapshot", err)
	}
	if _, _, err := b.Weights("other", []string{"t"}, e1.Add(time.Hour), time.Hour); !errors.Is(err, loadsource.ErrNotReady) {
		t.Fatalf("unknown cluster: %v, want ErrNotReady", err)
	}
	if _, _, err := b.Weights("c", []string{"t"}, e1.Add(iv+time.Hour), time.Minute); !errors.Is(err, loadsource.ErrStale) {
		t.Fatalf("an hour later: %v, want ErrStale", err)
	}
}

// Epochs are the sample time truncated to the interval: two samples in
// one epoch publish once, the second only what the epoch lacks once the
// first came back; a sample in the next epoch publishes again.
func TestBookOfferPublishesWhatTheEpochLacks(t *testing.T) {
	b, r := sharedBook()
	b.Offer("c", base.Add(3*time.Second), iv, map[string][]float64{"t": {1}})
	if len(r.recs) != 1 || r.recs[0].GetEpochUnixMs() != base.UnixMilli() || r.recs[0].GetReplica() != "me" {
		t.Fatalf("published %v, want one record of epoch %d by me", r.recs, base.UnixMilli())
	}
	// Not read back yet: the replica does not take its own sample.
	if _, _, err := b.Weights("c", []string{"t"}, base.Add(time.Hour), 2*time.Hour); err == nil {
		t.Fatal("a shared book planned with a record it never read back")
	}
	b.Apply(snap("c", base, "other", map[string][]float64{"t": {7}}))
	b.Offer("c", base.Add(9*time.Second), iv, map[string][]float64{"t": {1}, "u": {2}})
	if len(r.recs) != 2 || len(r.recs[1].GetTopics()) != 1 || r.recs[1].GetTopics()[0].GetTopic() != "u" {
		t.Fatalf("second record %v, want topic u only", r.recs[1:])
	}
	b.Offer("c", base.Add(iv), iv, map[string][]float64{"t": {1}})
	if len(r.recs) != 3 || r.recs[2].GetEpochUnixMs() != base.Add(iv).UnixMilli() {
		t.Fatalf("records %d, want a third for the next epoch", len(r.recs))
	}
	ws, _, err := b.Weights("c", []string{"t"}, base.Add(iv+2*time.Second), time.Hour)
	if err != nil || ws[0].Weights[0] != 7 {
		t.Fatalf("weights %v, %v; want the other replica's 7", ws, err)
	}
}

// Bounded memory: only the newest epochs per cluster are kept, a record
// older than all of them is ignored, and clusters beyond the cap too.
func TestBookEviction(t *testing.T) {
	b, _ := sharedBook(loadsource.WithKeep(2), loadsource.WithMaxClusters(1))
	for i := range 4 {
		b.Apply(snap("c", base.Add(time.Duration(i)*iv), "a", map[string][]float64{"t": {float64(i)}}))
	}
	if got := b.Epochs("c"); len(got) != 2 || got[base.Add(2*iv).UTC()] != 1 || got[base.Add(3*iv).UTC()] != 1 {
		t.Fatalf("epochs %v, want the last two", got)
	}
	b.Apply(snap("c", base, "a", map[string][]float64{"t": {9}}))
	b.Apply(snap("d", base, "a", map[string][]float64{"t": {9}}))
	b.Apply(&assigndv1.WeightSnapshot{Cluster: "c", EpochUnixMs: base.UnixMilli() + 1, IntervalMs: iv.Milliseconds()})
	if got := b.Ignored(); got != 3 {
		t.Fatalf("%d ignored, want 3 (too old, a second cluster, an epoch off the interval)", got)
	}
	if len(b.Epochs("c")) != 2 || len(b.Epochs("d")) != 0 {
		t.Fatalf("epochs c %v d %v", b.Epochs("c"), b.Epochs("d"))
	}
	// Invalid rates are skipped, topic by topic.
	b.Apply(snap("c", base.Add(3*iv), "a", map[string][]float64{"neg": {-1}, "ok": {1}}))
	if got := b.Epochs("c")[base.Add(3*iv).UTC()]; got != 2 {
		t.Fatalf("%d topics in the last epoch, want 2 (t and ok)", got)
	}
}

// Not shared, a replica decides alone: its own samples are the
// snapshots, the newest at once, the latest sample of an epoch replacing
// the earlier.
func TestBookLocal(t *testing.T) {
	b := loadsource.NewBook()
	b.Offer("", base.Add(time.Second), iv, map[string][]float64{"t": {1}})
	ws, id, err := b.Weights("", []string{"t"}, base.Add(time.Second), time.Minute)
	if err != nil || ws[0].Weights[0] != 1 || id != loadsource.SnapshotID("", base.UnixMilli()) {
		t.Fatalf("%v %q %v", ws, id, err)
	}
	b.Offer("", base.Add(2*time.Second), iv, map[string][]float64{"t": {2}})
	if ws, _, _ := b.Weights("", []string{"t"}, base.Add(2*time.Second), time.Minute); ws[0].Weights[0] != 2 {
		t.Fatalf("weights %v, want the later sample's 2", ws)
	}
}
