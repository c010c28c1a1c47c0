package share

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/internal/runner"
)

// Indices of different kinds, kept apart by the compiler: a member of the
// group, a subscriber of one topic (its position among the topic's
// subscribers) and an assignable partition of one topic (its position
// among the topic's assignable partitions).
type (
	memberIdx int32
	subIdx    int32
	partIdx   int32
)

// planner holds one run: members sorted by id, topics by name, and the
// plan being built. Where a pair goes is decided in one place, [spread],
// called once per topic by planTopics.
type planner struct {
	members []*Member // sorted by id
	topics  []*Topic  // sorted by name
	// subs lists each topic's subscribers, ascending.
	subs [][]memberIdx
	// assigned collects each member's plan, topic by topic.
	assigned [][]assign.TopicPartitions
	stats    Stats
	warnings []string

	runner.Poller
}

func newPlanner(g *Group, poll runner.Poller) (*planner, error) {
	if err := validate(g); err != nil {
		return nil, err
	}
	p := &planner{Poller: poll}
	for i := range g.Members {
		p.members = append(p.members, &g.Members[i])
	}
	slices.SortFunc(p.members, func(a, b *Member) int { return cmp.Compare(a.ID, b.ID) })
	for i := range g.Topics {
		p.topics = append(p.topics, &g.Topics[i])
	}
	slices.SortFunc(p.topics, func(a, b *Topic) int { return cmp.Compare(a.Name, b.Name) })
	p.subs = make([][]memberIdx, len(p.topics))
	p.assigned = make([][]assign.TopicPartitions, len(p.members))
	missing := map[string]bool{}
	for mi, m := range p.members {
		for _, name := range m.Topics {
			p.Poll()
			ti, ok := p.topicIndex(name)
			switch {
			case !ok:
				missing[name] = true
			case len(p.subs[ti]) == 0 || p.subs[ti][len(p.subs[ti])-1] != memberIdx(mi):
				// A topic a member lists twice counts once.
				p.subs[ti] = append(p.subs[ti], memberIdx(mi))
			}
		}
		// Every distinct current pair counts as removed until planTopic
		// finds it kept.
		p.stats.Removed += distinctPairs(m.Current)
	}
	for _, name := range sortedKeys(missing) {
		p.warnings = append(p.warnings, fmt.Sprintf("subscribed topic %q is not in the metadata: no members get it", name))
	}
	return p, nil
}

func distinctPairs(tps []assign.TopicPartitions) int {
	byTopic := map[string][]int32{}
	for _, tp := range tps {
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partitions...)
	}
	n := 0
	for _, ps := range byTopic {
		slices.Sort(ps)
		n += len(slices.Compact(ps))
	}
	return n
}

func (p *planner) topicIndex(name string) (int, bool) {
	return slices.BinarySearchFunc(p.topics, name, func(t *Topic, n string) int { return cmp.Compare(t.Name, n) })
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// planTopics plans every topic with subscribers, in name order.
func (p *planner) planTopics() {
	for ti, t := range p.topics {
		if len(p.subs[ti]) > 0 {
			p.planTopic(t, p.subs[ti])
		}
	}
}

// planTopic gives topic t's slots to its subscribers: with n subscribers
// and k assignable partitions, max(n, k) pairs, so that each partition
// has a member and each subscriber a partition. When n ≤ k the
// partitions are spread over the members, each partition to one; when
// n > k the members are spread over the partitions, each member to one.
// Either way a pair a member has stays where the counts allow.
func (p *planner) planTopic(t *Topic, subs []memberIdx) {
	parts, local := assignable(t)
	if len(parts) == 0 {
		return
	}
	// held[s]: the assignable partitions subscriber s has now, ascending
	// and distinct; holders[k]: the subscribers that have partition k.
	held := make([][]partIdx, len(subs))
	holders := make([][]subIdx, len(parts))
	for s, mi := range subs {
		for _, tp := range p.members[mi].Current {
			if tp.Topic != t.Name {
				continue
			}
			for _, q := range tp.Partitions {
				p.Poll()
				if q >= 0 && q < t.Partitions && local[q] >= 0 {
					held[s] = append(held[s], local[q])
				}
			}
		}
		slices.Sort(held[s])
		held[s] = slices.Compact(held[s])
		for _, k := range held[s] {
			holders[k] = append(holders[k], subIdx(s))
		}
	}
	// members[s]: the partitions subscriber s gets.
	members := make([][]partIdx, len(subs))
	if len(subs) <= len(parts) {
		for k, s := range spread[partIdx](holders, len(subs), p.Poll) {
			members[s] = append(members[s], partIdx(k))
		}
	} else {
		for s, k := range spread[subIdx](held, len(parts), p.Poll) {
			members[s] = []partIdx{k}
		}
	}
	for s, mi := range subs {
		if len(members[s]) == 0 {
			continue
		}
		ids := make([]int32, len(members[s]))
		for i, k := range members[s] {
			ids[i] = parts[k]
			if _, ok := slices.BinarySearch(held[s], k); ok {
				p.stats.Kept++
				p.stats.Removed--
			} else {
				p.stats.Added++
			}
		}
		p.stats.Pairs += len(ids)
		p.assigned[mi] = append(p.assigned[mi], assign.TopicPartitions{Topic: t.Name, Partitions: ids})
	}
}

// assignable lists t's assignable partitions, ascending, and maps each
// partition id to its position there (-1: unassignable).
func assignable(t *Topic) ([]int32, []partIdx) {
	local := make([]partIdx, t.Partitions)
	for _, q := range t.Unassignable {
		local[q] = -1
	}
	var parts []int32
	for q := range t.Partitions {
		if local[q] < 0 {
			continue
		}
		local[q] = partIdx(len(parts))
		parts = append(parts, q)
	}
	return parts, local
}

// result builds the plan's output, members in id order.
func (p *planner) result(ref string) *Result {
	r := &Result{Assignor: ref, Assignments: make([]Assignment, len(p.members)), Stats: p.stats, Warnings: p.warnings}
	for mi, m := range p.members {
		r.Assignments[mi] = Assignment{Member: m.ID, Partitions: p.assigned[mi]}
	}
	return r
}
