package share

import "github.com/assignd/assignd/assign/internal/runner"

// Assignor is one version of a share-group assignor, named by [Ref]. The
// set is closed: every implementation lives in this package and runs
// through [Run]. A new version of a name leaves the old one runnable, so
// that a rollback is a policy edit.
type Assignor interface {
	Name() string
	Version() int
	plan(p *planner)
}

// family is every runnable share assignor and the run they share.
var family = runner.NewFamily(newPlanner, Assignor.plan, (*planner).result, Sticky())

// Assignors returns every runnable share assignor, by name, then version.
func Assignors() []Assignor { return family.All() }

// Lookup finds a share assignor by name and version (0 is 1), as an
// AssignShareRequest names it.
func Lookup(name string, version int) (Assignor, bool) { return family.Lookup(name, version) }

// Ref names an assignor and version, as "sticky@1": the form of
// AssignShareResponse.assignor.
func Ref(a Assignor) string { return family.Ref(a) }
