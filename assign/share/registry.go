package share

import "github.com/assignd/assignd/assign/internal/versioned"

// NameSticky is the sticky share assignor's name.
const NameSticky = "sticky"

// Assignor is one version of a share-group assignor, named by [Ref]. The
// set is closed: every implementation lives in this package and runs
// through [Run]. A new version of a name leaves the old one runnable, so
// that a rollback is a policy edit.
type Assignor interface {
	Name() string
	Version() int
	plan(p *planner)
}

// Sticky returns the sticky share assignor ("sticky"@1): every topic's
// slots spread over its subscribers by the rules of the package
// documentation.
func Sticky() Assignor { return stickyV1{} }

type stickyV1 struct{}

func (stickyV1) Name() string    { return NameSticky }
func (stickyV1) Version() int    { return 1 }
func (stickyV1) plan(p *planner) { p.planTopics() }

// all is every runnable share assignor.
var all = versioned.NewRegistry(Sticky())

// Assignors returns every runnable share assignor, by name, then version.
func Assignors() []Assignor { return all.All() }

// Lookup finds a share assignor by name and version (0 is 1), as an
// AssignShareRequest names it.
func Lookup(name string, version int) (Assignor, bool) { return all.Lookup(name, version) }

// Ref names an assignor and version, as "sticky@1": the form of
// AssignShareResponse.assignor.
func Ref(a Assignor) string { return versioned.Ref(a) }
