package share_test

import (
	"fmt"
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/share"
)

// groupGen draws a share group: up to 4 topics of up to 9 partitions (some
// unassignable), up to 12 members subscribing to random topics (one that
// the metadata lacks too), each holding random pairs, some stale (another
// topic, a partition past the end, one listed twice).
func groupGen() *rapid.Generator[*share.Group] {
	return rapid.Custom(func(t *rapid.T) *share.Group {
		g := &share.Group{}
		names := []string{"gone"}
		for i := range rapid.IntRange(0, 4).Draw(t, "topics") {
			tp := share.Topic{Name: fmt.Sprint("t", i), Partitions: rapid.Int32Range(0, 9).Draw(t, "partitions")}
			if tp.Partitions > 0 && rapid.Bool().Draw(t, "unassignable") {
				tp.Unassignable = []int32{rapid.Int32Range(0, tp.Partitions-1).Draw(t, "unassignable partition")}
			}
			g.Topics = append(g.Topics, tp)
			names = append(names, tp.Name)
		}
		for i := range rapid.IntRange(0, 12).Draw(t, "members") {
			m := share.Member{ID: fmt.Sprint("m", i),
				Topics: rapid.SliceOfNDistinct(rapid.SampledFrom(names), 0, len(names), rapid.ID[string]).Draw(t, "subscription")}
			for range rapid.IntRange(0, 4).Draw(t, "current topics") {
				m.Current = append(m.Current, assign.TopicPartitions{Topic: rapid.SampledFrom(names).Draw(t, "current topic"),
					Partitions: rapid.SliceOfN(rapid.Int32Range(0, 10), 0, 5).Draw(t, "current partitions")})
			}
			g.Members = append(g.Members, m)
		}
		return g
	})
}

// checkRun runs sticky@1 on g and on g with its members and topics
// shuffled: both valid by Check, and equal.
func checkRun(t *rapid.T, g *share.Group) *share.Result {
	r, err := share.Run(share.Sticky(), g)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := share.Check(g, r); err != nil {
		t.Fatalf("invariants: %v\ngroup %+v\nplan %+v", err, g, r.Assignments)
	}
	h := &share.Group{
		Members: rapid.Permutation(g.Members).Draw(t, "member order"),
		Topics:  rapid.Permutation(g.Topics).Draw(t, "topic order"),
	}
	r2, err := share.Run(share.Sticky(), h)
	if err != nil || !reflect.DeepEqual(r, r2) {
		t.Fatalf("input order changed the plan: %+v vs %+v (%v)", r, r2, err)
	}
	if s := r.Stats; s.Kept+s.Added != s.Pairs {
		t.Fatalf("stats %+v: kept and added are not the pairs", s)
	}
	return r
}

// Random groups: valid plans, the same whatever the input's order, and a
// group that comes back with what it was given keeps every pair.
func TestStickyProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		g := groupGen().Draw(t, "group")
		r := checkRun(t, g)
		r2 := checkRun(t, next(g, r))
		if r2.Stats.Removed != 0 || r2.Stats.Added != 0 {
			t.Fatalf("steady group changed pairs: %+v", r2.Stats)
		}
	})
}

// A member that leaves costs the others nothing when the topic has at
// least as many partitions as members: its partitions are handed out,
// and no one else's pair is removed. (With more members than partitions
// it may be a partition's only member, and then another member must
// leave a shared partition for it.)
func TestStickyLeaveRemovesNothingElse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := rapid.Int32Range(1, 12).Draw(t, "partitions")
		n := rapid.IntRange(2, max(2, int(p))).Draw(t, "members")
		g := &share.Group{Topics: []share.Topic{{Name: "t", Partitions: p}}, Members: members([]string{"t"}, ids(n)...)}
		h := next(g, checkRun(t, g))
		gone := rapid.IntRange(0, n-1).Draw(t, "leaver")
		held := len(h.Members[gone].Current[0].Partitions)
		h.Members = append(h.Members[:gone:gone], h.Members[gone+1:]...)
		if r := checkRun(t, h); r.Stats.Removed != 0 {
			t.Fatalf("the leaver held %d; the others lost %d pairs", held, r.Stats.Removed)
		}
	})
}

func ids(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint("m", i)
	}
	return out
}

// FuzzSticky feeds groups drawn from the fuzzer's bytes to sticky@1:
// never a panic, and a valid plan that does not depend on the input's
// order.
func FuzzSticky(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(assigntest.FuzzInput(seed, 0x7368617265, 8*1024)) // "share"
	}
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) { checkRun(t, groupGen().Draw(t, "group")) }))
}
