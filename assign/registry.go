package assign

import "github.com/assignd/assignd/assign/internal/versioned"

// The standard assignors, under the protocol names Kafka clients use.
const (
	NameRange             = "range"
	NameRoundRobin        = "roundrobin"
	NameSticky            = "sticky"
	NameCooperativeSticky = "cooperative-sticky"
)

// Range returns the range assignor ("range"@1): per topic, contiguous
// partition ranges in member order, rack-aware per KIP-881. EAGER only.
func Range() Assignor { return rangeAssignor{} }

// RoundRobin returns the roundrobin assignor ("roundrobin"@1). EAGER only.
func RoundRobin() Assignor { return roundRobinAssignor{} }

// Sticky returns the eager sticky assignor ("sticky"@1, KIP-54/KIP-341),
// which reads the previous assignment from StickyAssignorUserData.
func Sticky() Assignor { return stickyAssignor{} }

// CooperativeSticky returns the cooperative-sticky assignor
// ("cooperative-sticky"@1, KIP-429), which reads the previous assignment
// from the members' owned partitions.
func CooperativeSticky() Assignor { return cooperativeStickyAssignor{} }

// CooperativeStickyPerTopic returns "cooperative-sticky"@2: the same
// protocol and wire format as CooperativeSticky, and never more moves on
// the same input, but members that give partitions up keep their share of
// each topic even, so that load spreads across topics (librdkafka #4044).
func CooperativeStickyPerTopic() Assignor { return cooperativeStickyV2{} }

// all is every runnable assignor, including older versions.
var all = versioned.NewRegistry(Range(), RoundRobin(), Sticky(), CooperativeSticky(), CooperativeStickyPerTopic(),
	KIP848Uniform(), KIP848Range(), LoadSticky())

// Assignors returns every runnable assignor, sorted by name, then version.
func Assignors() []Assignor { return all.All() }

// Lookup finds an assignor by name and version. Version 0 selects the
// standard version, the one Kafka clients of that name behave like (1).
func Lookup(name string, version int) (Assignor, bool) { return all.Lookup(name, version) }
