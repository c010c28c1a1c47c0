package loadsource_test

import (
	"math"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/loadsource"
)

// Any record read from the history topic, valid or not, leaves the book
// within its bounds, and every weight it answers with is finite and not
// negative.
func FuzzBookApply(f *testing.F) {
	seed, _ := proto.Marshal(snap("c", base, "a", map[string][]float64{"t": {1, 2}}))
	f.Add(seed, int64(0), int64(0))
	f.Add([]byte{0x10, 0x01, 0x18, 0x01}, int64(7), base.UnixMilli())
	f.Fuzz(func(t *testing.T, data []byte, shift, writtenMs int64) {
		b := loadsource.NewBook(loadsource.WithKeep(2), loadsource.WithMaxClusters(2), loadsource.WithMargin(0), loadsource.WithMaxRates(64))
		b.Share(&recorder{}, "me")
		var clusters []string
		for i := range 3 {
			ws := new(assigndv1.WeightSnapshot)
			if proto.Unmarshal(data, ws) != nil {
				return
			}
			ws.EpochUnixMs += shift * int64(i)
			var written time.Time // zero: no timestamp
			if writtenMs != 0 {
				written = time.UnixMilli(writtenMs)
			}
			b.ApplyAt(ws, written)
			clusters = append(clusters, ws.GetCluster())
		}
		for _, c := range clusters {
			if n := len(b.Epochs(c)); n > 2 {
				t.Fatalf("cluster %q keeps %d epochs, over the cap of 2", c, n)
			}
			for start := range b.Epochs(c) {
				ws, _, err := b.Weights(c, []string{"t"}, start.Add(time.Hour), 24*time.Hour)
				if err != nil {
					continue
				}
				for _, w := range ws[0].Weights {
					if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 {
						t.Fatalf("weight %v", w)
					}
				}
			}
		}
	})
}
