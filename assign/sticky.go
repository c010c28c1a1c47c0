package assign

import "github.com/assignd/assignd/assign/wire"

// stickyAssignor is the eager sticky assignor (KIP-54, KIP-341). See
// registry.go Sticky.
type stickyAssignor struct{ eagerProtocols }

func (stickyAssignor) Name() string { return NameSticky }
func (stickyAssignor) Version() int { return 1 }

// memberData reads the previous assignment from StickyAssignorUserData, as
// the Java StickyAssignor does: eager members revoke everything before they
// rejoin, so owned partitions and the subscription's generation are ignored.
// V1 carries a generation, V0 none; undecodable data counts as no history.
func (stickyAssignor) memberData(m *Member) ([]TopicPartitions, int32, bool) {
	if len(m.UserData) == 0 {
		return nil, NoGeneration, true
	}
	ud, err := wire.DecodeStickyUserData(m.UserData)
	if err != nil {
		return nil, NoGeneration, false
	}
	return ud.Previous, ud.Generation, true
}

func (stickyAssignor) plan(st *state, target []memberIdx) { stickyPlan(st, target, false) }

func (stickyAssignor) historyFromUserData() {}

// userDataHistory marks an assignor whose memberData reads history from
// user data rather than from Member.Owned (sticky). Revoked is always read
// from Member.Owned: what the member reports owning (resolveClaims).
type userDataHistory interface{ historyFromUserData() }

// cooperativeStickyAssignor is KIP-429's cooperative-sticky. See registry.go.
type cooperativeStickyAssignor struct{ cooperativeProtocols }

func (cooperativeStickyAssignor) Name() string { return NameCooperativeSticky }
func (cooperativeStickyAssignor) Version() int { return 1 }

func (cooperativeStickyAssignor) memberData(m *Member) ([]TopicPartitions, int32, bool) {
	g, ok := cooperativeGeneration(m)
	return m.Owned, g, ok
}

func (cooperativeStickyAssignor) plan(st *state, target []memberIdx) { stickyPlan(st, target, false) }

// cooperativeStickyV2 is cooperative-sticky@2: version 1's plan, wire-
// compatible and with exactly as many moves, but when a member must give
// partitions up it keeps its share of every topic even (librdkafka #4044:
// the reference balances only totals, so after a scale-out a member can
// end with all of one busy topic while another has all of a quiet one).
type cooperativeStickyV2 struct{ cooperativeStickyAssignor }

func (cooperativeStickyV2) Version() int { return 2 }

func (cooperativeStickyV2) plan(st *state, target []memberIdx) { stickyPlan(st, target, true) }

// cooperativeGeneration is the generation of a cooperative member's owned
// partitions: the subscription's GenerationId (v2+, KIP-792) when present;
// else the generation in the user data, which v0/v1 clients such as
// librdkafka 2.0 send: the Java client's cooperative-sticky writes it as
// four bytes, franz-go writes a StickyAssignorUserData V1 carrying it. The
// Java client reads the first four bytes of any user data; reading franz-go's
// format as what it is avoids mistaking its topic count for a generation.
// ok is false when the user data had to be read and could not be.
func cooperativeGeneration(m *Member) (generation int32, ok bool) {
	if m.Generation >= 0 {
		return m.Generation, true
	}
	switch len(m.UserData) {
	case 0:
		return NoGeneration, true
	case 4:
		g, err := wire.DecodeCooperativeUserData(m.UserData)
		if err != nil {
			return NoGeneration, false
		}
		return g, true
	}
	if ud, err := wire.DecodeStickyUserData(m.UserData); err == nil {
		return ud.Generation, true
	}
	return NoGeneration, false
}

// stickyPlan is the plan shared by sticky and cooperative-sticky: the
// balanced, minimal-movement plan of balance_equal.go when every member
// subscribes to the same topics, the general plan of balance_general.go
// otherwise. Rack-aware groups (KIP-881) always take the general plan: its
// placement fills racks by least load and its repair moves partitions to
// rack-local members first, which keeps far more partitions in their
// consumers' racks than dealing by quota can (docs/engine.md), and it is
// just as balanced and sticky. lookahead then makes a rack-aware
// cooperative round's follow-up its last.
func stickyPlan(st *state, target []memberIdx, perTopic bool) {
	if st.equalSubs && !st.rackAware {
		planEqual(st, target, perTopic)
		return
	}
	planGeneral(st, target)
	lookahead(st, target)
}
