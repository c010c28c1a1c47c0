package share_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/assign/share"
)

// run runs sticky@1 on g and fails t on an error or a broken invariant.
func run(t testing.TB, g *share.Group) *share.Result {
	t.Helper()
	return assigntest.MustPlan(t, g, func(g *share.Group) (*share.Result, error) { return share.Run(share.Sticky(), g) }, share.Check)
}

func tp(topic string, ps ...int32) []assign.TopicPartitions {
	return []assign.TopicPartitions{{Topic: topic, Partitions: ps}}
}

// of is member's partitions of topic in r.
func of(r *share.Result, member, topic string) []int32 {
	for _, a := range r.Assignments {
		if a.Member == member {
			for _, x := range a.Partitions {
				if x.Topic == topic {
					return x.Partitions
				}
			}
		}
	}
	return nil
}

// next is the group of the next epoch: every member's current
// assignment is what r gave it.
func next(g *share.Group, r *share.Result) *share.Group {
	h := *g
	h.Members = slices.Clone(g.Members)
	for i := range h.Members {
		h.Members[i].Current = nil
		for _, a := range r.Assignments {
			if a.Member == h.Members[i].ID {
				h.Members[i].Current = a.Partitions
			}
		}
	}
	return &h
}

func members(topics []string, ids ...string) []share.Member {
	out := make([]share.Member, len(ids))
	for i, id := range ids {
		out[i] = share.Member{ID: id, Topics: topics}
	}
	return out
}

var t4 = []share.Topic{{Name: "t", Partitions: 4}}

func TestStickyTables(t *testing.T) {
	for _, tc := range []struct {
		name  string
		group share.Group
		want  map[string][]int32 // member → partitions of "t"
		stats share.Stats
	}{{
		name:  "first assignment, fewer members than partitions: two each",
		group: share.Group{Topics: t4, Members: members([]string{"t"}, "a", "b")},
		want:  map[string][]int32{"a": {0, 1}, "b": {2, 3}},
		stats: share.Stats{Pairs: 4, Added: 4},
	}, {
		name:  "more members than partitions: each member one, partitions shared 2 and 1",
		group: share.Group{Topics: []share.Topic{{Name: "t", Partitions: 2}}, Members: members([]string{"t"}, "a", "b", "c")},
		want:  map[string][]int32{"a": {0}, "b": {1}, "c": {0}},
		stats: share.Stats{Pairs: 3, Added: 3},
	}, {
		name: "a member joins: the others keep all they can",
		group: share.Group{Topics: t4, Members: []share.Member{
			{ID: "a", Topics: []string{"t"}, Current: tp("t", 0, 1)},
			{ID: "b", Topics: []string{"t"}, Current: tp("t", 2, 3)},
			{ID: "c", Topics: []string{"t"}}}},
		want:  map[string][]int32{"a": {0, 1}, "b": {2}, "c": {3}},
		stats: share.Stats{Pairs: 4, Kept: 3, Added: 1, Removed: 1},
	}, {
		name: "the fifth member of four partitions shares one, nothing moves",
		group: share.Group{Topics: t4, Members: []share.Member{
			{ID: "a", Topics: []string{"t"}, Current: tp("t", 0)},
			{ID: "b", Topics: []string{"t"}, Current: tp("t", 1)},
			{ID: "c", Topics: []string{"t"}, Current: tp("t", 2)},
			{ID: "d", Topics: []string{"t"}, Current: tp("t", 3)},
			{ID: "e", Topics: []string{"t"}}}},
		want:  map[string][]int32{"a": {0}, "b": {1}, "c": {2}, "d": {3}, "e": {0}},
		stats: share.Stats{Pairs: 5, Kept: 4, Added: 1},
	}, {
		name: "partitions added to a shared topic: each partition keeps one of its members",
		group: share.Group{Topics: t4, Members: []share.Member{
			{ID: "a", Topics: []string{"t"}, Current: tp("t", 0)},
			{ID: "b", Topics: []string{"t"}, Current: tp("t", 0)},
			{ID: "c", Topics: []string{"t"}, Current: tp("t", 1)},
			{ID: "d", Topics: []string{"t"}, Current: tp("t", 1)}}},
		want:  map[string][]int32{"a": {0}, "b": {2}, "c": {1}, "d": {3}},
		stats: share.Stats{Pairs: 4, Kept: 2, Added: 2, Removed: 2},
	}, {
		name: "unassignable partitions get nobody and count for no slot",
		group: share.Group{Topics: []share.Topic{{Name: "t", Partitions: 4, Unassignable: []int32{1, 3}}},
			Members: []share.Member{{ID: "a", Topics: []string{"t"}, Current: tp("t", 1)}, {ID: "b", Topics: []string{"t"}}}},
		want:  map[string][]int32{"a": {0}, "b": {2}},
		stats: share.Stats{Pairs: 2, Added: 2, Removed: 1},
	}, {
		name: "an unsubscribed topic and a stale pair are dropped",
		group: share.Group{Topics: append([]share.Topic{{Name: "u", Partitions: 1}}, t4...), Members: []share.Member{
			{ID: "a", Topics: []string{"t"}, Current: append(tp("u", 0), tp("t", 0, 9, 0)...)}}},
		want:  map[string][]int32{"a": {0, 1, 2, 3}},
		stats: share.Stats{Pairs: 4, Kept: 1, Added: 3, Removed: 2},
	}, {
		name:  "no members: an empty plan",
		group: share.Group{Topics: t4},
		want:  map[string][]int32{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, &tc.group)
			got := map[string][]int32{}
			for _, a := range r.Assignments {
				if ps := of(r, a.Member, "t"); ps != nil {
					got[a.Member] = ps
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("plan %v, want %v", got, tc.want)
			}
			if r.Stats != tc.stats {
				t.Errorf("stats %+v, want %+v", r.Stats, tc.stats)
			}
		})
	}
}

// Heterogeneous subscriptions: each topic is planned over its own
// subscribers only.
func TestStickyTopicsApart(t *testing.T) {
	g := &share.Group{
		Topics: []share.Topic{{Name: "x", Partitions: 3}, {Name: "y", Partitions: 1}},
		Members: []share.Member{
			{ID: "a", Topics: []string{"x", "y"}}, {ID: "b", Topics: []string{"x"}}, {ID: "c", Topics: []string{"y", "missing"}}},
	}
	r := run(t, g)
	if got := of(r, "b", "y"); got != nil {
		t.Errorf("b is given y %v without subscribing", got)
	}
	if !slices.Equal(of(r, "a", "y"), []int32{0}) || !slices.Equal(of(r, "c", "y"), []int32{0}) {
		t.Errorf("y's partition should go to both its subscribers: %+v", r.Assignments)
	}
	if len(r.Warnings) != 1 {
		t.Errorf("warnings %q, want one for the missing topic", r.Warnings)
	}
}

// A group that comes back with what it was given keeps it all.
func TestStickySteady(t *testing.T) {
	g := &share.Group{Topics: []share.Topic{{Name: "t", Partitions: 7}}, Members: members([]string{"t"}, "a", "b", "c")}
	r := run(t, g)
	r2 := run(t, next(g, r))
	if r2.Stats.Removed != 0 || r2.Stats.Added != 0 || !reflect.DeepEqual(r.Assignments, r2.Assignments) {
		t.Errorf("second round %+v, stats %+v", r2.Assignments, r2.Stats)
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name          string
		group         share.Group
		member, field string
	}{
		{"empty id", share.Group{Members: []share.Member{{}}}, "", "members[0].member_id"},
		{"twice", share.Group{Members: []share.Member{{ID: "a"}, {ID: "a"}}}, "a", "member_id"},
		{"empty topic", share.Group{Members: []share.Member{{ID: "a", Topics: []string{"t", ""}}}}, "a", "topics[1]"},
		{"topic twice", share.Group{Topics: []share.Topic{{Name: "t"}, {Name: "t"}}}, "", "topics[1].name"},
		{"no topic name", share.Group{Topics: []share.Topic{{}}}, "", "topics[0].name"},
		{"negative partitions", share.Group{Topics: []share.Topic{{Name: "t", Partitions: -1}}}, "", "topics[0].partitions"},
		{"unassignable out of range", share.Group{Topics: []share.Topic{{Name: "t", Partitions: 2, Unassignable: []int32{2}}}}, "", "topics[0].unassignable[0]"},
		{"too many partitions", share.Group{Topics: []share.Topic{{Name: "t", Partitions: share.MaxPartitions}, {Name: "u", Partitions: 1}}}, "", "topics[1].partitions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := share.Run(share.Sticky(), &tc.group)
			var ie *assign.InputError
			if !errors.As(err, &ie) || !errors.Is(err, assign.ErrInvalidGroup) || ie.Member != tc.member || ie.Field != tc.field {
				t.Fatalf("err %v, want an InputError for member %q field %q", err, tc.member, tc.field)
			}
		})
	}
}

func TestRunRejectsNoGroup(t *testing.T) {
	var ie *assign.InputError
	if _, err := share.Run(share.Sticky(), nil); !errors.As(err, &ie) || ie.Field != "group" {
		t.Fatalf("err %v, want an InputError for the group", err)
	}
}

func TestRunStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g := &share.Group{Topics: t4, Members: members([]string{"t"}, "a")}
	if _, err := share.Run(share.Sticky(), g, share.WithContext(ctx)); !errors.Is(err, assign.ErrStopped) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want ErrStopped and Canceled", err)
	}
}

func TestRunStopsInsideThePlan(t *testing.T) {
	g := &share.Group{Topics: []share.Topic{{Name: "t", Partitions: 20_000}}}
	for i := range 100 {
		g.Members = append(g.Members, share.Member{ID: fmt.Sprint("m", i), Topics: []string{"t"}})
	}
	if r, err := share.Run(share.Sticky(), g, share.WithContext(assigntest.EndingContext())); !errors.Is(err, assign.ErrStopped) || r != nil {
		t.Fatalf("Run = %v, %v; want ErrStopped", r, err)
	}
}

func TestLookup(t *testing.T) {
	a, ok := share.Lookup(share.NameSticky, 0)
	if !ok || share.Ref(a) != "sticky@1" {
		t.Fatalf("Lookup(sticky, 0) = %v, %v", a, ok)
	}
	if _, ok := share.Lookup(share.NameSticky, 2); ok {
		t.Fatal("sticky@2 should not exist")
	}
	got := share.Assignors()
	if !slices.IsSortedFunc(got, func(a, b share.Assignor) int {
		return cmp.Or(cmp.Compare(a.Name(), b.Name()), cmp.Compare(a.Version(), b.Version()))
	}) || len(got) != 1 || share.Ref(got[0]) != "sticky@1" {
		t.Fatalf("Assignors() = %v", got)
	}
}
