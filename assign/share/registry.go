package share

import (
	"slices"
	"strconv"
)

// NameSticky is the sticky share assignor's name.
const NameSticky = "sticky"

// Assignor is a versioned share-group assignor. The set is closed: every
// implementation lives in this package and runs through [Run].
type Assignor interface {
	Name() string
	// Version distinguishes behaviourally different implementations of the
	// same name; older versions stay runnable so that a rollback is a
	// policy edit.
	Version() int
	plan(p *planner)
}

// Sticky returns the sticky share assignor ("sticky"@1), the rules of the
// package documentation.
func Sticky() Assignor { return stickyV1{} }

type stickyV1 struct{}

func (stickyV1) Name() string    { return NameSticky }
func (stickyV1) Version() int    { return 1 }
func (stickyV1) plan(p *planner) { p.planTopics() }

// all is every runnable share assignor, sorted by name, then version.
var all = []Assignor{Sticky()}

// Assignors returns every runnable share assignor, by name, then version.
func Assignors() []Assignor { return slices.Clone(all) }

// Lookup finds a share assignor by name and version; version 0 is 1.
func Lookup(name string, version int) (Assignor, bool) {
	i := slices.IndexFunc(all, func(a Assignor) bool { return a.Name() == name && a.Version() == max(version, 1) })
	if i < 0 {
		return nil, false
	}
	return all[i], true
}

// Ref names an assignor and version, as "sticky@1".
func Ref(a Assignor) string { return a.Name() + "@" + strconv.Itoa(a.Version()) }
