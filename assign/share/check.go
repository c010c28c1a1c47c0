package share

import (
	"errors"
	"fmt"
	"slices"
)

// Check returns every way r breaks the rules a plan for g must keep, or
// nil. Per topic of g with subscribers: every assignable partition goes
// to at least one member (KIP-932: a share group's partition may have
// several), and only to subscribers; no unassignable or unknown partition
// is given; the plan has max(subscribers, assignable partitions) pairs;
// members' partition counts differ by at most one, as do partitions'
// member counts; and every subscriber has a partition when the topic has
// one. Every test of the package checks its plans with it; so do the
// server's tests.
func Check(g *Group, r *Result) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	subscribed := map[string]map[string]bool{} // topic → members
	for _, m := range g.Members {
		for _, t := range m.Topics {
			if subscribed[t] == nil {
				subscribed[t] = map[string]bool{}
			}
			subscribed[t][m.ID] = true
		}
	}
	topics := map[string]*Topic{}
	for i := range g.Topics {
		topics[g.Topics[i].Name] = &g.Topics[i]
	}
	perMember := map[string]map[string]int{}   // topic → member → partitions
	perPartition := map[string]map[int32]int{} // topic → partition → members
	members := map[string]bool{}
	for _, m := range g.Members {
		members[m.ID] = true
	}
	seen := map[string]bool{}
	for _, a := range r.Assignments {
		if seen[a.Member] || !members[a.Member] {
			bad("assignment for %q, which is not a member or appears twice", a.Member)
		}
		seen[a.Member] = true
		for _, tp := range a.Partitions {
			t := topics[tp.Topic]
			switch {
			case t == nil:
				bad("member %q is given topic %q, which is not in the metadata", a.Member, tp.Topic)
				continue
			case !subscribed[tp.Topic][a.Member]:
				bad("member %q is given topic %q, to which it does not subscribe", a.Member, tp.Topic)
			}
			if perMember[tp.Topic] == nil {
				perMember[tp.Topic], perPartition[tp.Topic] = map[string]int{}, map[int32]int{}
			}
			for i, q := range tp.Partitions {
				switch {
				case q < 0 || q >= t.Partitions:
					bad("member %q is given %s-%d, which does not exist", a.Member, tp.Topic, q)
				case slices.Contains(t.Unassignable, q):
					bad("member %q is given %s-%d, which is not assignable", a.Member, tp.Topic, q)
				case i > 0 && q <= tp.Partitions[i-1]:
					bad("member %q: partitions of %q not ascending and distinct", a.Member, tp.Topic)
				}
				perMember[tp.Topic][a.Member]++
				perPartition[tp.Topic][q]++
			}
		}
	}
	for name, subs := range subscribed {
		t := topics[name]
		if t == nil {
			continue
		}
		parts := int(t.Partitions) - len(distinct(t.Unassignable))
		if parts == 0 {
			continue
		}
		pairs := 0
		for _, n := range perMember[name] {
			pairs += n
		}
		if want := max(len(subs), parts); pairs != want {
			bad("topic %q has %d pairs, want max(%d subscribers, %d partitions) = %d", name, pairs, len(subs), parts, want)
		}
		lo, hi := spanOf(perMember[name], len(subs))
		if hi-lo > 1 || lo == 0 {
			bad("topic %q: members hold %d to %d partitions", name, lo, hi)
		}
		lo, hi = spanOf(perPartition[name], parts)
		if hi-lo > 1 || lo == 0 {
			bad("topic %q: partitions have %d to %d members", name, lo, hi)
		}
	}
	return errors.Join(errs...)
}

// spanOf is the least and greatest count of counts over want keys, a key
// absent from counts counting 0.
func spanOf[K comparable](counts map[K]int, want int) (lo, hi int) {
	lo = -1
	for _, n := range counts {
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
	}
	if len(counts) < want || lo < 0 {
		lo = 0
	}
	return lo, hi
}

func distinct(qs []int32) []int32 {
	out := slices.Clone(qs)
	slices.Sort(out)
	return slices.Compact(out)
}
