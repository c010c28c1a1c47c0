package share_test

import (
	"fmt"
	"testing"

	"github.com/assignd/assignd/assign/share"
)

// BenchmarkSticky plans share groups of growing size, one topic with more
// partitions than members and one with fewer, every member coming back
// with its previous plan but for one that left (so pairs move), and
// reports the pairs removed beside the time.
func BenchmarkSticky(b *testing.B) {
	for _, size := range []struct{ members, partitions int32 }{{10, 60}, {100, 1_000}, {1_000, 20_000}, {10_000, 200_000}} {
		b.Run(fmt.Sprintf("members=%d/partitions=%d", size.members, size.partitions), func(b *testing.B) {
			g := &share.Group{Topics: []share.Topic{{Name: "wide", Partitions: size.partitions}, {Name: "narrow", Partitions: size.members / 3}}}
			for i := range size.members {
				g.Members = append(g.Members, share.Member{ID: fmt.Sprintf("m%05d", i), Topics: []string{"wide", "narrow"}})
			}
			h := next(g, run(b, g))
			h.Members = h.Members[1:]
			var r *share.Result
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				var err error
				if r, err = share.Run(share.Sticky(), h); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(r.Stats.Removed), "removed")
			b.ReportMetric(float64(r.Stats.Pairs), "pairs")
		})
	}
}
