package history

import (
	"slices"
	"time"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// joinEvent is one member joining its group: a member present in a
// decision and absent from the group's decision before it. Members are
// known by a hash of their key (see [memberKey]), so that a group keeps
// its last StormCap joins in 1 KiB whatever its member ids, independent of
// how many decisions it keeps: a flapping cooperative member costs three
// decisions per flap (the join, its follow-up, the leave), more than the
// default eight decisions show.
type joinEvent struct {
	key uint64
	at  int64 // Unix nanoseconds
}

// memberKeys hashes the member keys of d, sorted; nil when d lists only
// part of its members (a large group), which is then not compared.
func memberKeys(d *assigndv1.Decision) []uint64 {
	if int(d.GetMemberCount()) != len(d.GetMembers()) {
		return nil
	}
	keys := make([]uint64, 0, len(d.GetMembers()))
	for _, m := range d.GetMembers() {
		keys = append(keys, keyHash(m))
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// keyHash is FNV-1a of the member's key as memberKey defines it (a tag
// byte, then the instance id or the member id without its UUID suffix),
// computed without allocating: Record calls it for every member listed.
func keyHash(m *assigndv1.DecisionMember) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	tag, id := byte('i'), m.GetGroupInstanceId()
	if id == "" {
		tag, id = 'm', trimMemberUUID(m.GetMemberId())
	}
	h := uint64(offset)
	h = (h ^ uint64(tag)) * prime
	for i := 0; i < len(id); i++ {
		h = (h ^ uint64(id[i])) * prime
	}
	return h
}

// noteJoins records the members of keys absent from the group's previous
// decision, and keeps keys for the next one. A decision older than the
// latest (its record came late) is not compared: the one after it was.
// Called under the Store's lock, for decisions only (not shadow runs).
func (g *group) noteJoins(keys []uint64, at time.Time) {
	if latest := g.latest(); latest != nil && at.Before(latest.GetTime().AsTime()) {
		return
	}
	if keys != nil && g.lastKeys != nil {
		for _, k := range keys {
			if _, found := slices.BinarySearch(g.lastKeys, k); found {
				continue
			}
			if g.joins == nil {
				g.joins = make([]joinEvent, StormCap)
			}
			g.joins[g.joinsHead] = joinEvent{key: k, at: at.UnixNano()}
			g.joinsHead = (g.joinsHead + 1) % len(g.joins)
		}
	}
	g.lastKeys = keys
}

// flapping finds the member that joined most often since since, and how
// many times. A member is known by its group instance id, else by its
// member id without the coordinator's UUID suffix (the client id, for Java
// and franz-go clients), so that a restarted member is the same member.
// Members sharing a client id make one key present throughout, which hides
// their joins rather than inventing any. It returns the member's key, to
// name with [memberNamed].
func flapping(joins []joinEvent, since time.Time) (member uint64, n int) {
	counts := make(map[uint64]int)
	for _, j := range joins {
		if j.at != 0 && j.at >= since.UnixNano() {
			counts[j.key]++
		}
	}
	for k, c := range counts {
		if c > n || c == n && k < member {
			member, n = k, c
		}
	}
	return member, n
}

// memberNamed names the member of key from the decisions kept (newest
// first), or as "(not in the decisions kept)".
func memberNamed(key uint64, newestFirst []kept) string {
	for _, k := range newestFirst {
		for _, m := range k.full().GetMembers() {
			if keyHash(m) == key {
				return memberKey(m)
			}
		}
	}
	return "(not in the decisions kept)"
}
