package assigntest

import (
	"slices"

	"github.com/assignd/assignd/assign"
)

// GroupBuilder builds test groups fluently:
//
//	g := assigntest.NewGroup().
//		Topic("t0", 32).Topic("t1", 8).
//		Member("m1", "t0", "t1").Owns("m1", "t0", 0, 1).Gen("m1", 3).
//		Member("m2", "t0").Static("m2", "host-2").Rack("m2", "az1").
//		Build()
//
// Members and topics keep the order in which they were first added, so a
// test can also check that the result does not depend on input order.
// Methods that name a member panic if it was not added: that is a bug in
// the test, not in the code under test.
type GroupBuilder struct {
	g assign.Group
}

// NewGroup starts an empty group in generation 1 with an unspecified
// protocol.
func NewGroup() *GroupBuilder { return &GroupBuilder{g: assign.Group{Generation: 1}} }

// Edit starts from a copy of g; g itself is never modified.
func Edit(g *assign.Group) *GroupBuilder { return &GroupBuilder{g: *cloneGroup(g)} }

// Generation sets the generation being formed.
func (b *GroupBuilder) Generation(gen int32) *GroupBuilder { b.g.Generation = gen; return b }

// Protocol sets the rebalance protocol.
func (b *GroupBuilder) Protocol(p assign.RebalanceProtocol) *GroupBuilder {
	b.g.Protocol = p
	return b
}

// Topic adds a topic to the metadata, or changes its partition count
// (dropping its racks).
func (b *GroupBuilder) Topic(name string, partitions int32) *GroupBuilder {
	for i := range b.g.Topics {
		if b.g.Topics[i].Name == name {
			b.g.Topics[i] = assign.Topic{Name: name, Partitions: partitions}
			return b
		}
	}
	b.g.Topics = append(b.g.Topics, assign.Topic{Name: name, Partitions: partitions})
	return b
}

// DropTopic removes a topic from the metadata (members keep subscribing).
func (b *GroupBuilder) DropTopic(name string) *GroupBuilder {
	b.g.Topics = slices.DeleteFunc(b.g.Topics, func(t assign.Topic) bool { return t.Name == name })
	return b
}

// Racks sets the replica racks of a topic, one list per partition. The
// count is not checked here, so that tests can feed Run a mismatch.
func (b *GroupBuilder) Racks(topic string, perPartition ...[]string) *GroupBuilder {
	for i := range b.g.Topics {
		if b.g.Topics[i].Name == topic {
			b.g.Topics[i].Racks = perPartition
			return b
		}
	}
	panic("assigntest: Racks: no topic " + topic)
}

// Member adds a dynamic member (generation NoGeneration) subscribing to
// topics, or replaces the subscription of an existing one.
func (b *GroupBuilder) Member(id string, topics ...string) *GroupBuilder {
	topics = slices.Clone(topics)
	if topics == nil {
		topics = []string{}
	}
	if m := b.find(id); m != nil {
		m.Topics = topics
		return b
	}
	b.g.Members = append(b.g.Members, assign.Member{ID: id, Topics: topics, Generation: assign.NoGeneration})
	return b
}

// Remove drops a member.
func (b *GroupBuilder) Remove(id string) *GroupBuilder {
	b.must(id, "Remove")
	b.g.Members = slices.DeleteFunc(b.g.Members, func(m assign.Member) bool { return m.ID == id })
	return b
}

// Static gives a member a group.instance.id.
func (b *GroupBuilder) Static(id, instanceID string) *GroupBuilder {
	b.must(id, "Static").InstanceID = instanceID
	return b
}

// Rack sets a member's client.rack.
func (b *GroupBuilder) Rack(id, rack string) *GroupBuilder {
	b.must(id, "Rack").Rack = rack
	return b
}

// Owns adds partitions of topic to what a member reports owning.
func (b *GroupBuilder) Owns(id, topic string, partitions ...int32) *GroupBuilder {
	m := b.must(id, "Owns")
	for i := range m.Owned {
		if m.Owned[i].Topic == topic {
			m.Owned[i].Partitions = append(m.Owned[i].Partitions, partitions...)
			return b
		}
	}
	m.Owned = append(m.Owned, assign.TopicPartitions{Topic: topic, Partitions: slices.Clone(partitions)})
	return b
}

// Disown clears what a member reports owning.
func (b *GroupBuilder) Disown(id string) *GroupBuilder {
	b.must(id, "Disown").Owned = nil
	return b
}

// Gen sets the generation of a member's owned partitions.
func (b *GroupBuilder) Gen(id string, gen int32) *GroupBuilder {
	b.must(id, "Gen").Generation = gen
	return b
}

// UserData sets a member's assignor user data.
func (b *GroupBuilder) UserData(id string, data []byte) *GroupBuilder {
	b.must(id, "UserData").UserData = slices.Clone(data)
	return b
}

// Build returns a copy of the group built so far; the builder stays usable.
func (b *GroupBuilder) Build() *assign.Group { return cloneGroup(&b.g) }

func (b *GroupBuilder) find(id string) *assign.Member {
	for i := range b.g.Members {
		if b.g.Members[i].ID == id {
			return &b.g.Members[i]
		}
	}
	return nil
}

func (b *GroupBuilder) must(id, method string) *assign.Member {
	m := b.find(id)
	if m == nil {
		panic("assigntest: " + method + ": no member " + id)
	}
	return m
}
