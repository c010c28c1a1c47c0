package versioned

import (
	"cmp"
	"slices"
	"strconv"
)

// Assignor is what a registry needs of an assignor: its name and a version
// that distinguishes behaviourally different implementations of the same
// name, so that older versions stay runnable and a rollback is a policy
// edit.
type Assignor interface {
	Name() string
	Version() int
}

// Registry is a closed set of assignors, sorted by name, then version.
type Registry[A Assignor] struct{ all []A }

// NewRegistry returns the registry of as.
func NewRegistry[A Assignor](as ...A) Registry[A] {
	all := slices.Clone(as)
	slices.SortFunc(all, func(a, b A) int {
		return cmp.Or(cmp.Compare(a.Name(), b.Name()), cmp.Compare(a.Version(), b.Version()))
	})
	return Registry[A]{all}
}

// All returns every assignor of r, by name, then version.
func (r Registry[A]) All() []A { return slices.Clone(r.all) }

// Lookup finds an assignor by name and version; version 0 is 1.
func (r Registry[A]) Lookup(name string, version int) (A, bool) {
	i := slices.IndexFunc(r.all, func(a A) bool { return a.Name() == name && a.Version() == max(version, 1) })
	if i < 0 {
		var none A
		return none, false
	}
	return r.all[i], true
}

// Ref names an assignor and version, as "sticky@1".
func Ref(a Assignor) string { return a.Name() + "@" + strconv.Itoa(a.Version()) }
