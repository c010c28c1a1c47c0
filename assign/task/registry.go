package task

import (
	"cmp"
	"slices"
	"strconv"
)

// NameSticky is the sticky task assignor's name, the name of the broker's
// built-in (group.streams.assignors=sticky).
const NameSticky = "sticky"

// Assignor is a versioned task assignor. The set is closed: every
// implementation lives in this package and runs through [Run].
type Assignor interface {
	Name() string
	// Version distinguishes behaviourally different implementations of the
	// same name; older versions stay runnable so that a rollback is a
	// policy edit.
	Version() int
	plan(p *planner)
}

// Sticky returns the sticky task assignor ("sticky"@1), the rules of the
// package documentation.
func Sticky() Assignor { return stickyV1{} }

type stickyV1 struct{}

func (stickyV1) Name() string    { return NameSticky }
func (stickyV1) Version() int    { return 1 }
func (stickyV1) plan(p *planner) { p.placeActives(); p.holdForWarmups(); p.placeStandbys() }

var all = []Assignor{Sticky()}

// Assignors returns every runnable task assignor, by name, then version.
func Assignors() []Assignor {
	out := slices.Clone(all)
	slices.SortFunc(out, func(a, b Assignor) int {
		return cmp.Or(cmp.Compare(a.Name(), b.Name()), cmp.Compare(a.Version(), b.Version()))
	})
	return out
}

// Lookup finds a task assignor by name and version; version 0 is 1.
func Lookup(name string, version int) (Assignor, bool) {
	version = max(version, 1)
	for _, a := range all {
		if a.Name() == name && a.Version() == version {
			return a, true
		}
	}
	return nil, false
}

// Ref names an assignor and version, as "sticky@1".
func Ref(a Assignor) string { return a.Name() + "@" + strconv.Itoa(a.Version()) }
