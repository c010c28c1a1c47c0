package assign_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/assignd/assignd/assign"
)

// Straightforward models of the Java RangeAssignor and RoundRobinAssignor,
// written from the reference description with maps, strings and repeated
// scans, the way the Java code is shaped. The engine's versions work on
// dense ids with cursors and per-rack pointers; the property tests check
// that the two agree, rack-aware mode included, where franz-go's balancers
// (which have no KIP-881 logic for range) cannot serve as the reference.

// modelMemberOrder sorts members as MemberInfo.compareTo does.
func modelMemberOrder(ms []assign.Member) []assign.Member {
	out := slices.Clone(ms)
	java := func(a, b string) int { return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b))) }
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.InstanceID != "" && b.InstanceID != "":
			if c := java(a.InstanceID, b.InstanceID); c != 0 {
				return c < 0
			}
			return java(a.ID, b.ID) < 0
		case a.InstanceID != "":
			return true
		case b.InstanceID != "":
			return false
		}
		return java(a.ID, b.ID) < 0
	})
	return out
}

// modelTopics returns the partition counts of subscribed topics that exist
// with partitions, and their names sorted.
func modelTopics(g *assign.Group) (map[string]int, []string) {
	subscribed := map[string]bool{}
	for _, m := range g.Members {
		for _, t := range m.Topics {
			subscribed[t] = true
		}
	}
	counts := map[string]int{}
	var names []string
	for _, t := range g.Topics {
		if subscribed[t.Name] && t.Partitions > 0 {
			counts[t.Name] = int(t.Partitions)
			names = append(names, t.Name)
		}
	}
	sort.Strings(names)
	return counts, names
}

func modelKey(topic string, p int) string { return fmt.Sprintf("%s:%d", topic, p) }

// modelRoundRobin deals partitions with a circular iterator that peeks past
// members not subscribed to the partition's topic.
func modelRoundRobin(g *assign.Group) map[string][]string {
	counts, names := modelTopics(g)
	members := modelMemberOrder(g.Members)
	out := map[string][]string{}
	next := 0
	for _, topic := range names {
		for p := range counts[topic] {
			for !slices.Contains(members[next].Topics, topic) {
				next = (next + 1) % len(members)
			}
			id := members[next].ID
			out[id] = append(out[id], modelKey(topic, p))
			next = (next + 1) % len(members)
		}
	}
	return out
}

// rangeModelTopic mirrors the Java TopicAssignmentState.
type rangeModelTopic struct {
	topic      string
	n          int
	consumers  []string          // member order
	rack       map[string]string // consumer -> rack, racked consumers only
	racks      map[int][]string  // partition -> replica racks; nil when no consumer has a rack
	needsRacks bool
	unassigned []int
	assigned   map[string]int
	quota      int
	extra      int
}

func (s *rangeModelTopic) maxAssignable(c string) int {
	m := s.quota - s.assigned[c]
	if s.extra > 0 {
		m++
	}
	return max(0, m)
}

func (s *rangeModelTopic) racksMatch(c string, p int) bool {
	r, ok := s.rack[c]
	return !ok || slices.Contains(s.racks[p], r)
}

func (s *rangeModelTopic) assign(out map[string][]string, c string, ps []int) {
	for _, p := range ps {
		out[c] = append(out[c], modelKey(s.topic, p))
		s.unassigned = slices.DeleteFunc(s.unassigned, func(x int) bool { return x == p })
	}
	s.assigned[c] += len(ps)
	if s.assigned[c] > s.quota {
		s.extra--
	}
}

func (s *rangeModelTopic) assignRanges(out map[string][]string, may func(c string, p int) bool) {
	for _, c := range s.consumers {
		if len(s.unassigned) == 0 {
			break
		}
		var ps []int
		for _, p := range s.unassigned {
			if len(ps) == s.maxAssignable(c) {
				break
			}
			if may(c, p) {
				ps = append(ps, p)
			}
		}
		if len(ps) > 0 {
			s.assign(out, c, ps)
		}
	}
}

// modelRange is the Java RangeAssignor with KIP-881. rackAware false drops
// all rack information, as WithRackAware(false) does.
func modelRange(g *assign.Group, rackAware bool) map[string][]string {
	counts, names := modelTopics(g)
	members := modelMemberOrder(g.Members)
	meta := map[string]assign.Topic{}
	for _, t := range g.Topics {
		meta[t.Name] = t
	}
	var states []*rangeModelTopic
	for _, topic := range names {
		s := &rangeModelTopic{topic: topic, n: counts[topic], rack: map[string]string{}, assigned: map[string]int{}}
		for _, m := range members {
			if slices.Contains(m.Topics, topic) {
				s.consumers = append(s.consumers, m.ID)
				if m.Rack != "" && rackAware {
					s.rack[m.ID] = m.Rack
				}
			}
		}
		for p := range s.n {
			s.unassigned = append(s.unassigned, p)
		}
		s.quota, s.extra = s.n/len(s.consumers), s.n%len(s.consumers)
		if len(s.rack) > 0 {
			s.racks = map[int][]string{}
			all := map[string]bool{}
			for p := range s.n {
				var rs []string
				if meta[topic].Racks != nil {
					for _, r := range meta[topic].Racks[p] {
						if r != "" && !slices.Contains(rs, r) {
							rs = append(rs, r)
						}
					}
				}
				s.racks[p] = rs
				for _, r := range rs {
					all[r] = true
				}
			}
			// useRackAwareAssignment.
			hosted := false
			for _, r := range s.rack {
				hosted = hosted || all[r]
			}
			if hosted {
				for p := range s.n {
					if len(s.racks[p]) != len(all) {
						s.needsRacks = true
					}
				}
			}
		}
		states = append(states, s)
	}

	out := map[string][]string{}
	useRacks := slices.ContainsFunc(states, func(s *rangeModelTopic) bool { return s.needsRacks })
	if useRacks {
		// groupingBy(consumers) then groupingBy(partitionRacks.size()),
		// in map order: the groups are independent.
		groups := map[string][]*rangeModelTopic{}
		for _, s := range states {
			k := strings.Join(s.consumers, "\x00") + fmt.Sprintf("\x01%d", len(s.racks))
			groups[k] = append(groups[k], s)
		}
		for _, group := range groups {
			if len(group) == 1 {
				if s := group[0]; s.needsRacks {
					s.assignRanges(out, s.racksMatch)
				}
				continue
			}
			remaining := slices.Clone(group[0].consumers)
			for p := range len(group[0].racks) {
				if len(remaining) == 0 {
					break
				}
				for i, c := range remaining {
					ok := true
					for _, s := range group {
						ok = ok && s.racksMatch(c, p) && s.maxAssignable(c) > 0
					}
					if !ok {
						continue
					}
					for _, s := range group {
						s.assign(out, c, []int{p})
					}
					more := false
					for _, s := range group {
						more = more || s.maxAssignable(c) > 0
					}
					if !more {
						remaining = slices.Delete(remaining, i, i+1)
					}
					break
				}
			}
		}
	}
	for _, s := range states {
		s.assignRanges(out, func(string, int) bool { return true })
	}
	return out
}

// modelLayout renders a model's result as layout does.
func modelLayout(g *assign.Group, m map[string][]string) map[string]string {
	out := make(map[string]string, len(g.Members))
	for _, mem := range g.Members {
		byTopic := map[string][]int{}
		var topics []string
		for _, k := range m[mem.ID] {
			i := strings.LastIndexByte(k, ':')
			var p int
			fmt.Sscan(k[i+1:], &p)
			if _, ok := byTopic[k[:i]]; !ok {
				topics = append(topics, k[:i])
			}
			byTopic[k[:i]] = append(byTopic[k[:i]], p)
		}
		sort.Strings(topics)
		var parts []string
		for _, t := range topics {
			ps := byTopic[t]
			slices.Sort(ps)
			s := make([]string, len(ps))
			for i, p := range ps {
				s[i] = fmt.Sprint(p)
			}
			parts = append(parts, t+":"+strings.Join(s, ","))
		}
		out[mem.ID] = strings.Join(parts, " ")
	}
	return out
}
