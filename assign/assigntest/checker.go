package assigntest

import (
	"slices"

	"github.com/assignd/assignd/assign"
)

// Ownership marks in checker.owner besides result member indices.
const (
	free    = -1
	pending = -2
)

// checker holds one Check run. Topics are numbered by their position in
// g.Topics so that per-partition state lives in flat slices: the checker
// also runs on million-partition results in benchmarks.
type checker struct {
	g   *assign.Group
	r   *assign.Result
	rep *report

	topicID map[string]int // metadata topics (first listing wins)
	names   []string       // topic id -> name
	counts  []int32        // partition count per topic id
	owner   [][]int32      // topic id -> partition -> result member index, free or pending

	member    map[string]int // group member id -> index in g.Members
	resultIdx []int          // g member index -> index in r.Members, or -1
	subs      [][]int        // g member index -> sorted ids of subscribed metadata topics
	wanted    []bool         // topic id -> some member subscribes to it
}

func newChecker(g *assign.Group, r *assign.Result, rep *report) *checker {
	c := &checker{g: g, r: r, rep: rep, topicID: make(map[string]int, len(g.Topics))}
	for _, t := range g.Topics {
		if _, dup := c.topicID[t.Name]; dup {
			continue
		}
		c.topicID[t.Name] = len(c.counts)
		c.names = append(c.names, t.Name)
		c.counts = append(c.counts, max(t.Partitions, 0))
	}
	c.owner = make([][]int32, len(c.counts))
	for t, n := range c.counts {
		c.owner[t] = make([]int32, n)
		for p := range c.owner[t] {
			c.owner[t][p] = free
		}
	}
	c.wanted = make([]bool, len(c.counts))
	c.member = make(map[string]int, len(g.Members))
	c.subs = make([][]int, len(g.Members))
	c.resultIdx = make([]int, len(g.Members))
	for i := range g.Members {
		m := &g.Members[i]
		if _, dup := c.member[m.ID]; !dup {
			c.member[m.ID] = i
		}
		c.resultIdx[i] = -1
		for _, name := range m.Topics {
			if t, ok := c.topicID[name]; ok {
				c.subs[i] = append(c.subs[i], t)
				if c.counts[t] > 0 {
					c.wanted[t] = true
				}
			}
		}
		slices.Sort(c.subs[i])
		c.subs[i] = slices.Compact(c.subs[i])
	}
	return c
}

// subscribes reports whether group member gi subscribes to topic id t.
func (c *checker) subscribes(gi, t int) bool {
	_, ok := slices.BinarySearch(c.subs[gi], t)
	return ok
}

func (c *checker) checkHeader() {
	r := c.r
	if r.Assignor == "" {
		c.rep.add(KindResult, "result names no assignor")
	}
	if r.Protocol != assign.Eager && r.Protocol != assign.Cooperative {
		c.rep.add(KindResult, "result protocol is %v, want EAGER or COOPERATIVE", r.Protocol)
	} else if c.g.Protocol != assign.ProtocolUnspecified && r.Protocol != c.g.Protocol {
		c.rep.add(KindResult, "result protocol is %v but the group runs %v", r.Protocol, c.g.Protocol)
	}
}

// checkMembers pairs result entries with group members.
func (c *checker) checkMembers() {
	seen := make(map[string]bool, len(c.r.Members))
	for i, ma := range c.r.Members {
		if i > 0 && ma.ID < c.r.Members[i-1].ID {
			c.rep.add(KindMemberOrder, "member %q comes after %q", ma.ID, c.r.Members[i-1].ID)
		}
		if seen[ma.ID] {
			c.rep.add(KindDuplicateMember, "member %q has more than one entry", ma.ID)
			continue
		}
		seen[ma.ID] = true
		if gi, ok := c.member[ma.ID]; ok {
			c.resultIdx[gi] = i
		} else {
			c.rep.add(KindUnknownMember, "member %q is not in the group", ma.ID)
		}
	}
	for gi, m := range c.g.Members {
		if c.resultIdx[gi] < 0 && c.member[m.ID] == gi {
			c.rep.add(KindMissingMember, "member %q has no entry", m.ID)
		}
	}
}

// walk checks the shape of a list (ascending topics, strictly ascending
// partitions, no empty entries) and calls fn for each partition. With
// known set, partitions must also exist in the metadata; fn then only sees
// existing partitions, with their topic id.
func (c *checker) walk(where string, list []assign.TopicPartitions, known bool, fn func(t int, name string, p int32)) {
	for i, tp := range list {
		if i > 0 && tp.Topic <= list[i-1].Topic {
			c.rep.add(KindUnsorted, "%s: topic %q listed after %q", where, tp.Topic, list[i-1].Topic)
		}
		if len(tp.Partitions) == 0 {
			c.rep.add(KindEmptyEntry, "%s: topic %q has no partitions", where, tp.Topic)
		}
		t, ok := c.topicID[tp.Topic]
		if known && !ok {
			c.rep.add(KindUnknownTopic, "%s: topic %q is not in the metadata", where, tp.Topic)
		}
		for j, p := range tp.Partitions {
			if j > 0 && p <= tp.Partitions[j-1] {
				c.rep.add(KindUnsorted, "%s: %s-%d listed after %s-%d", where, tp.Topic, p, tp.Topic, tp.Partitions[j-1])
			}
			if !ok {
				if !known {
					fn(-1, tp.Topic, p)
				}
				continue
			}
			if p < 0 || p >= c.counts[t] {
				if known {
					c.rep.add(KindOutOfRange, "%s: %s-%d is beyond the %d partitions of %q", where, tp.Topic, p, c.counts[t], tp.Topic)
					continue
				}
				fn(-1, tp.Topic, p)
				continue
			}
			fn(t, tp.Topic, p)
		}
	}
}

// checkLists validates Assigned and Pending and records who holds what.
func (c *checker) checkLists() {
	for ri, ma := range c.r.Members {
		gi, inGroup := c.member[ma.ID]
		where := "member " + quote(ma.ID) + " Assigned"
		c.walk(where, ma.Assigned, true, func(t int, name string, p int32) {
			if inGroup && !c.subscribes(gi, t) {
				c.rep.add(KindNotSubscribed, "%s: %s-%d but the member does not subscribe to %q", where, name, p, name)
			}
			c.hold(t, name, p, int32(ri))
		})
	}
	c.walk("Pending", c.r.Pending, true, func(t int, name string, p int32) {
		if !c.wanted[t] {
			c.rep.add(KindNotSubscribed, "Pending: %s-%d but no member subscribes to %q", name, p, name)
		}
		c.hold(t, name, p, pending)
	})
}

func (c *checker) hold(t int, name string, p int32, who int32) {
	switch prev := c.owner[t][p]; {
	case prev == free:
		c.owner[t][p] = who
	case prev == pending && who == pending:
		// Duplicate inside Pending: already reported as unsorted.
	default:
		c.rep.add(KindDuplicate, "%s-%d is held by both %s and %s", name, p, c.holder(prev), c.holder(who))
	}
}

func (c *checker) holder(who int32) string {
	if who == pending {
		return "Pending"
	}
	return "member " + quote(c.r.Members[who].ID)
}

// checkCoverage reports partitions of subscribed topics that nobody holds.
func (c *checker) checkCoverage() {
	for id, name := range c.names {
		if !c.wanted[id] {
			continue
		}
		for p, o := range c.owner[id] {
			if o == free {
				c.rep.add(KindUnassigned, "%s-%d is neither assigned nor pending", name, p)
			}
		}
	}
}

func quote(s string) string { return `"` + s + `"` }
