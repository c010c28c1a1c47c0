package assigntest

import (
	"errors"
	"fmt"
)

// Kind classifies a violation, so that tests can assert which invariant
// failed without matching message text.
type Kind string

// The invariants Check verifies.
const (
	// KindResult: the result is missing or its header (protocol) is wrong.
	KindResult Kind = "result"
	// KindMemberOrder: r.Members is not sorted by member id.
	KindMemberOrder Kind = "member-order"
	// KindMissingMember: a member of the group has no entry in the result.
	KindMissingMember Kind = "missing-member"
	// KindDuplicateMember: a member has more than one entry.
	KindDuplicateMember Kind = "duplicate-member"
	// KindUnknownMember: the result names a member that is not in the group.
	KindUnknownMember Kind = "unknown-member"
	// KindUnsorted: topics or partitions of a list are not strictly
	// ascending.
	KindUnsorted Kind = "unsorted"
	// KindEmptyEntry: a list has a topic entry without partitions.
	KindEmptyEntry Kind = "empty-entry"
	// KindUnknownTopic: a partition of a topic missing from the metadata.
	KindUnknownTopic Kind = "unknown-topic"
	// KindOutOfRange: a partition number outside 0..count-1.
	KindOutOfRange Kind = "out-of-range"
	// KindNotSubscribed: a partition given to a member that does not
	// subscribe to its topic (or pending on a topic nobody subscribes to).
	KindNotSubscribed Kind = "not-subscribed"
	// KindDuplicate: a partition appears more than once across all
	// members' Assigned and Pending.
	KindDuplicate Kind = "duplicate"
	// KindUnassigned: a partition of a subscribed topic is neither assigned
	// nor pending.
	KindUnassigned Kind = "unassigned"
	// KindOwnedByOther: under COOPERATIVE, a partition is assigned to a
	// member while another member still lists it as owned (KIP-429).
	KindOwnedByOther Kind = "owned-by-other"
	// KindRevoked: a revoked partition the member did not own, or one it is
	// assigned at the same time.
	KindRevoked Kind = "revoked"
	// KindPending: Pending and FollowupRequired disagree, or something is
	// pending under EAGER.
	KindPending Kind = "pending"
	// KindStats: Stats disagrees with the lists.
	KindStats Kind = "stats"
	// KindImbalance: the Balanced option failed.
	KindImbalance Kind = "imbalance"
	// KindNotSticky: the Sticky option failed.
	KindNotSticky Kind = "not-sticky"
)

// Violation is one broken invariant. Check joins them with errors.Join.
type Violation struct {
	Kind Kind
	// Msg names the member, topic and partition at fault.
	Msg string
}

func (v *Violation) Error() string { return string(v.Kind) + ": " + v.Msg }

// Violations returns the violations inside an error returned by Check, in
// the order Check found them; nil for a nil error.
func Violations(err error) []*Violation {
	if err == nil {
		return nil
	}
	var out []*Violation
	var walk func(error)
	walk = func(e error) {
		if v, ok := e.(*Violation); ok {
			out = append(out, v)
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		if u := errors.Unwrap(e); u != nil {
			walk(u)
		}
	}
	walk(err)
	return out
}

// Has reports whether err, as returned by Check, contains a violation of
// kind k.
func Has(err error, k Kind) bool {
	for _, v := range Violations(err) {
		if v.Kind == k {
			return true
		}
	}
	return false
}

// report collects violations, keeping at most limit messages per kind (0:
// no limit) and counting the rest, so that a result that is wrong
// everywhere still gives a readable error.
type report struct {
	limit   int
	vs      []error
	perKind map[Kind]int
	order   []Kind
}

func (r *report) add(k Kind, format string, args ...any) {
	if r.perKind == nil {
		r.perKind = make(map[Kind]int)
	}
	n := r.perKind[k]
	if n == 0 {
		r.order = append(r.order, k)
	}
	r.perKind[k] = n + 1
	if r.limit > 0 && n >= r.limit {
		return
	}
	r.vs = append(r.vs, &Violation{Kind: k, Msg: fmt.Sprintf(format, args...)})
}

func (r *report) err() error {
	for _, k := range r.order {
		if n := r.perKind[k]; r.limit > 0 && n > r.limit {
			r.vs = append(r.vs, &Violation{Kind: k, Msg: fmt.Sprintf("... and %d more %s violations", n-r.limit, k)})
		}
	}
	return errors.Join(r.vs...)
}
