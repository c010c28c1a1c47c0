package assign

import "slices"

// Standard is what a standard protocol name means: the assignor it runs
// unless a policy puts another behind it, and the rebalance protocols
// Kafka's clients of that name run. The protocol name is what the clients
// chose, so the rebalance protocols are a fact of the name, whatever
// assignor serves it.
type Standard struct {
	// Name is the protocol name, e.g. "range".
	Name string
	// Assignor is the assignor of that name at its standard version, the
	// one Kafka clients of that name behave like.
	Assignor Assignor
	// Protocols lists the rebalance protocols the name's clients may run,
	// their default first:
	//
	//   - "range", "roundrobin", "sticky": EAGER only. These clients revoke
	//     everything before rejoining; a cooperative plan would hand them
	//     partitions another member still consumes.
	//   - "cooperative-sticky": COOPERATIVE, and EAGER too: during the
	//     KIP-429 upgrade's first rolling bounce a consumer configured with
	//     [cooperative-sticky, range] runs EAGER (the highest protocol all
	//     its assignors support) while the group still picks
	//     "cooperative-sticky".
	Protocols []RebalanceProtocol
}

// Allows reports whether the name's clients may run p.
func (s Standard) Allows(p RebalanceProtocol) bool { return slices.Contains(s.Protocols, p) }

// standards is the one table of standard protocol names, sorted by name.
var standards = []Standard{
	{Name: NameCooperativeSticky, Assignor: CooperativeSticky(), Protocols: cooperativeFirst},
	{Name: NameRange, Assignor: Range(), Protocols: eagerOnly},
	{Name: NameRoundRobin, Assignor: RoundRobin(), Protocols: eagerOnly},
	{Name: NameSticky, Assignor: Sticky(), Protocols: eagerOnly},
}

// Standards returns the standard protocol names' table, sorted by name.
func Standards() []Standard {
	out := make([]Standard, len(standards))
	for i, s := range standards {
		out[i] = s
		out[i].Protocols = slices.Clone(s.Protocols)
	}
	return out
}

// StandardOf returns what a standard protocol name means, or false for any
// other name.
func StandardOf(name string) (Standard, bool) {
	for _, s := range standards {
		if s.Name == name {
			s.Protocols = slices.Clone(s.Protocols)
			return s, true
		}
	}
	return Standard{}, false
}

// StandardNames returns the standard protocol names, sorted.
func StandardNames() []string {
	out := make([]string, len(standards))
	for i, s := range standards {
		out[i] = s.Name
	}
	return out
}
