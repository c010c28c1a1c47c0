package assigntest

import (
	"slices"
	"strings"

	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
)

// GenOption shapes the groups GroupGen draws.
type GenOption interface{ applyGen(*genConfig) }

type genConfig struct {
	minMembers, maxMembers int
	minTopics, maxTopics   int
	minParts, maxParts     int32
	equal                  bool
	static                 bool
	racks                  bool
	missing                bool
	owned                  bool
	conflicts              bool
	unicode                bool
	protocol               assign.RebalanceProtocol
}

type genOptionFunc func(*genConfig)

func (f genOptionFunc) applyGen(c *genConfig) { f(c) }

// Members bounds the member count. Default: 1 to 10.
func Members(lo, hi int) GenOption {
	return genOptionFunc(func(c *genConfig) { c.minMembers, c.maxMembers = lo, hi })
}

// Topics bounds the number of topics in the metadata. Default: 1 to 5.
func Topics(lo, hi int) GenOption {
	return genOptionFunc(func(c *genConfig) { c.minTopics, c.maxTopics = lo, hi })
}

// Partitions bounds each topic's partition count. Default: 0 to 12 (a topic
// with no partitions gets none assigned).
func Partitions(lo, hi int32) GenOption {
	return genOptionFunc(func(c *genConfig) { c.minParts, c.maxParts = lo, hi })
}

// EqualSubscriptions makes every member subscribe to the same topics.
// Default: each member draws its own (possibly empty) subset.
func EqualSubscriptions() GenOption { return genOptionFunc(func(c *genConfig) { c.equal = true }) }

// StaticMembers gives some members distinct group.instance.ids (KIP-345).
// Default: all members dynamic.
func StaticMembers() GenOption { return genOptionFunc(func(c *genConfig) { c.static = true }) }

// WithRacks gives some members a rack out of three and every partition a
// random, possibly empty, set of replica racks (KIP-881). Default: no racks.
func WithRacks() GenOption { return genOptionFunc(func(c *genConfig) { c.racks = true }) }

// MissingTopics lets members subscribe to topics absent from the metadata.
// Default: members subscribe only to topics in the metadata.
func MissingTopics() GenOption { return genOptionFunc(func(c *genConfig) { c.missing = true }) }

// Owned gives members previously owned partitions, each owned by at most
// one member, with generations below the group's (or none). Default: no
// member owns anything.
func Owned() GenOption { return genOptionFunc(func(c *genConfig) { c.owned = true }) }

// Conflicts implies Owned and lets a second member claim some partitions
// too, in the same or another generation (KAFKA-12984). Default: off.
func Conflicts() GenOption {
	return genOptionFunc(func(c *genConfig) { c.owned, c.conflicts = true, true })
}

// UnicodeIDs draws member and instance ids from a mix of ASCII, U+E000-
// U+FFFF and supplementary characters, where Go byte order and Java UTF-16
// order disagree. Default: ASCII ids.
func UnicodeIDs() GenOption { return genOptionFunc(func(c *genConfig) { c.unicode = true }) }

// Protocol sets the group's rebalance protocol. Default: unspecified.
func Protocol(p assign.RebalanceProtocol) GenOption {
	return genOptionFunc(func(c *genConfig) { c.protocol = p })
}

// GroupGen returns a rapid generator of valid groups: distinct member ids,
// distinct instance ids, distinct topic names, consistent rack lists, owned
// partitions within the partition counts.
func GroupGen(opts ...GenOption) *rapid.Generator[*assign.Group] {
	cfg := genConfig{minMembers: 1, maxMembers: 10, minTopics: 1, maxTopics: 5, minParts: 0, maxParts: 12}
	for _, o := range opts {
		o.applyGen(&cfg)
	}
	return rapid.Custom(func(t *rapid.T) *assign.Group { return cfg.draw(t) })
}

var idRunes = []rune{'a', 'b', 'c', 'Z', '0', '-', 'é', '\u4e16', '\uE000', '\uFFFD', '\uFFEE', '\U00010000', '\U0001F600'}

func (cfg *genConfig) idGen(prefix string) *rapid.Generator[string] {
	if !cfg.unicode {
		return rapid.Map(rapid.StringMatching(`[a-z0-9][a-z0-9-]{0,6}`), func(s string) string { return prefix + s })
	}
	return rapid.Custom(func(t *rapid.T) string {
		rs := rapid.SliceOfN(rapid.SampledFrom(idRunes), 1, 4).Draw(t, "runes")
		var sb strings.Builder
		sb.WriteString(prefix)
		for _, r := range rs {
			sb.WriteRune(r)
		}
		return sb.String()
	})
}

func (cfg *genConfig) draw(t *rapid.T) *assign.Group {
	same := func(s string) string { return s }
	g := &assign.Group{
		Generation: rapid.Int32Range(1, 10).Draw(t, "generation"),
		Protocol:   cfg.protocol,
	}

	nTopics := rapid.IntRange(cfg.minTopics, cfg.maxTopics).Draw(t, "topics")
	nMissing := 0
	if cfg.missing {
		nMissing = rapid.IntRange(0, 2).Draw(t, "missing")
	}
	names := rapid.SliceOfNDistinct(rapid.StringMatching(`t[a-z0-9._-]{0,5}`), nTopics+nMissing, nTopics+nMissing, same).Draw(t, "topic names")
	racks := []string{"az1", "az2", "az3"}
	for _, name := range names[:nTopics] {
		top := assign.Topic{Name: name, Partitions: rapid.Int32Range(cfg.minParts, cfg.maxParts).Draw(t, "partitions")}
		if cfg.racks && rapid.IntRange(0, 3).Draw(t, "topic racked") > 0 {
			top.Racks = make([][]string, top.Partitions)
			for p := range top.Racks {
				top.Racks[p] = rapid.SliceOfNDistinct(rapid.SampledFrom(racks), 0, len(racks), same).Draw(t, "replica racks")
			}
		}
		g.Topics = append(g.Topics, top)
	}

	n := rapid.IntRange(cfg.minMembers, cfg.maxMembers).Draw(t, "members")
	ids := rapid.SliceOfNDistinct(cfg.idGen("m"), n, n, same).Draw(t, "member ids")
	var instances []string
	if cfg.static {
		instances = rapid.SliceOfNDistinct(cfg.idGen("i"), n, n, same).Draw(t, "instance ids")
	}
	pickTopics := func(label string) []string {
		ts := []string{}
		for _, name := range names {
			if rapid.Bool().Draw(t, label) {
				ts = append(ts, name)
			}
		}
		return ts
	}
	var shared []string
	if cfg.equal {
		shared = pickTopics("shared topics")
	}
	for i, id := range ids {
		m := assign.Member{ID: id, Generation: assign.NoGeneration, Topics: slices.Clone(shared)}
		if !cfg.equal {
			m.Topics = pickTopics("topics")
		}
		if cfg.static && rapid.Bool().Draw(t, "static") {
			m.InstanceID = instances[i]
		}
		if cfg.racks && rapid.IntRange(0, 3).Draw(t, "member racked") > 0 {
			m.Rack = rapid.SampledFrom(racks).Draw(t, "rack")
		}
		if cfg.owned {
			m.Generation = rapid.Int32Range(-1, g.Generation-1).Draw(t, "member generation")
		}
		g.Members = append(g.Members, m)
	}
	if cfg.owned {
		cfg.drawOwned(t, g)
	}
	return g
}

// drawOwned hands each existing partition to at most one member (two with
// Conflicts) as a previously owned partition.
func (cfg *genConfig) drawOwned(t *rapid.T, g *assign.Group) {
	n := len(g.Members)
	for _, top := range g.Topics {
		for p := range top.Partitions {
			o := rapid.IntRange(-1, n-1).Draw(t, "owner")
			if o < 0 {
				continue
			}
			addOwned(&g.Members[o], top.Name, p)
			if cfg.conflicts && n > 1 && rapid.IntRange(0, 3).Draw(t, "conflict") == 0 {
				o2 := (o + 1 + rapid.IntRange(0, n-2).Draw(t, "second owner")) % n
				addOwned(&g.Members[o2], top.Name, p)
			}
		}
	}
}

func addOwned(m *assign.Member, topic string, p int32) {
	if k := len(m.Owned); k > 0 && m.Owned[k-1].Topic == topic {
		m.Owned[k-1].Partitions = append(m.Owned[k-1].Partitions, p)
		return
	}
	m.Owned = append(m.Owned, assign.TopicPartitions{Topic: topic, Partitions: []int32{p}})
}
