package assign_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
)

// scenario is one benchmark input: the group as the engine sees it and the
// members' JoinGroup metadata bytes as a leader receives them.
type scenario struct {
	name     string
	group    *assign.Group
	metadata [][]byte         // per member, ConsumerProtocolSubscription v3
	topics   map[string]int32 // partition counts, as a franz-go leader passes them
}

func topicName(t int) string  { return fmt.Sprintf("topic-%03d", t) }
func memberName(m int) string { return fmt.Sprintf("member-%04d", m) }

// uniformGroup is nTopics × nParts partitions and nMembers members, member m
// subscribed to topic t when subscribed(m, t).
func uniformGroup(nTopics, nParts, nMembers int, subscribed func(m, t int) bool) *assign.Group {
	g := &assign.Group{Generation: 1, Protocol: assign.Cooperative}
	all := make([]string, nTopics)
	for t := range nTopics {
		all[t] = topicName(t)
		g.Topics = append(g.Topics, assign.Topic{Name: all[t], Partitions: int32(nParts)})
	}
	for m := range nMembers {
		topics := all
		if subscribed != nil {
			topics = nil
			for t := range nTopics {
				if subscribed(m, t) {
					topics = append(topics, all[t])
				}
			}
		}
		g.Members = append(g.Members, assign.Member{ID: memberName(m), Topics: topics, Generation: assign.NoGeneration})
	}
	return g
}

// owning returns g with every member owning what r assigned it at
// generation gen; members absent from r own nothing.
func owning(g *assign.Group, r *assign.Result, gen int32) *assign.Group {
	out := *g
	out.Members = append([]assign.Member(nil), g.Members...)
	byID := make(map[string][]assign.TopicPartitions, len(r.Members))
	for _, m := range r.Members {
		byID[m.ID] = m.Assigned
	}
	for i := range out.Members {
		out.Members[i].Owned = byID[out.Members[i].ID]
		out.Members[i].Generation = gen
		out.Members[i].UserData = wire.AppendCooperativeUserData(nil, gen)
	}
	return &out
}

func without(g *assign.Group, id string) *assign.Group {
	out := *g
	out.Members = nil
	for _, m := range g.Members {
		if m.ID != id {
			out.Members = append(out.Members, m)
		}
	}
	return &out
}

func with(g *assign.Group, m assign.Member) *assign.Group {
	out := *g
	out.Members = append(append([]assign.Member(nil), g.Members...), m)
	return &out
}

func newScenario(name string, g *assign.Group) *scenario {
	s := &scenario{name: name, group: g, topics: make(map[string]int32)}
	for _, t := range g.Topics {
		s.topics[t.Name] = t.Partitions
	}
	for _, m := range g.Members {
		sub := wire.Subscription{Version: 3, Topics: m.Topics, UserData: m.UserData, Owned: m.Owned, Generation: m.Generation}
		s.metadata = append(s.metadata, wire.AppendSubscription(nil, &sub))
	}
	return s
}

func mustRun(g *assign.Group) *assign.Result {
	r, err := assign.Run(assign.CooperativeSticky(), g)
	if err != nil {
		panic(err)
	}
	return r
}

// scenarioOrder lists the benchmark groups: S (10 members, 3 × 32
// partitions), U (200 members, 40 × 200, member i subscribed to topic j when
// (i+j) mod 3 ≠ 0), A (2,000 members, 500 × 2,000 partitions, first
// assignment), B (A's result owned, one member gone), B2 (A's result owned,
// one member added) and E (as A, the last member subscribed to topic 0 only);
// then R (1,000 members, 100 × 1,000 partitions, each member subscribed to
// 30 topics drawn at random) and R-join (R's result owned, 100 members
// added): unequal subscriptions at scale, the repair's hardest case.
var scenarioOrder = []string{"S", "S-leave", "U", "U-leave", "A", "B", "B2", "E", "R", "R-join"}

// randomSubscriptions returns R's rule for members 0 to members-1: member
// m subscribes to 30 of the 100 topics, drawn by a generator seeded with m,
// so that every run and every added member draws the same. Each member's
// topics are drawn once, not once per question.
func randomSubscriptions(members int) func(m, t int) bool {
	subscribed := make([][100]bool, members)
	for m := range subscribed {
		for _, t := range rand.New(rand.NewPCG(uint64(m), 30)).Perm(100)[:30] {
			subscribed[m][t] = true
		}
	}
	return func(m, t int) bool { return subscribed[m][t] }
}

var (
	cachedName     string
	cachedScenario *scenario
)

// benchScenario builds one scenario. Only the last one is kept alive: the
// large ones hold gigabytes, and a big live heap would slow every garbage
// collection of whatever runs next, peer and assignd alike.
func benchScenario(name string) *scenario {
	if name == cachedName {
		return cachedScenario
	}
	cachedName, cachedScenario = "", nil
	var g *assign.Group
	switch name {
	case "S", "S-leave":
		g = uniformGroup(3, 32, 10, nil)
		if name == "S-leave" {
			g = without(owning(g, mustRun(g), 1), memberName(3))
		}
	case "U", "U-leave":
		g = uniformGroup(40, 200, 200, func(m, t int) bool { return (m+t)%3 != 0 })
		if name == "U-leave" {
			g = without(owning(g, mustRun(g), 1), memberName(100))
		}
	case "A", "B", "B2":
		g = uniformGroup(500, 2000, 2000, nil)
		switch name {
		case "B":
			g = without(owning(g, mustRun(g), 1), memberName(1234))
		case "B2":
			topics := g.Members[0].Topics
			g = with(owning(g, mustRun(g), 1), assign.Member{ID: memberName(2000), Topics: topics, Generation: assign.NoGeneration})
		}
	case "E":
		g = uniformGroup(500, 2000, 2000, func(m, t int) bool { return m < 1999 || t == 0 })
	case "R", "R-join":
		subscribed := randomSubscriptions(1100)
		g = uniformGroup(100, 1000, 1000, subscribed)
		if name == "R-join" {
			joined := uniformGroup(100, 1000, 1100, subscribed)
			joined.Members = append(owning(g, mustRun(g), 1).Members, joined.Members[1000:]...)
			g = joined
		}
	default:
		panic("unknown scenario " + name)
	}
	cachedName, cachedScenario = name, newScenario(name, g)
	return cachedScenario
}
