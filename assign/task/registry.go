package task

import "github.com/assignd/assignd/assign/internal/versioned"

// NameSticky is the sticky task assignor's name, the name of the broker's
// built-in (group.streams.assignors=sticky).
const NameSticky = "sticky"

// Assignor is a task assignor of a given name and version. Every
// implementation lives in this package, and a new version leaves the old
// one runnable, so that a policy can roll back to it.
type Assignor interface {
	Name() string
	Version() int
	plan(p *planner)
}

// Sticky returns the sticky task assignor ("sticky"@1): actives first,
// then warm-ups, then standbys, by the rules of the package documentation.
func Sticky() Assignor { return stickyV1{} }

type stickyV1 struct{}

func (stickyV1) Name() string    { return NameSticky }
func (stickyV1) Version() int    { return 1 }
func (stickyV1) plan(p *planner) { p.placeActives(); p.holdForWarmups(); p.placeStandbys() }

var all = versioned.NewRegistry(Sticky())

// Assignors lists the task assignors a policy may name, by name, then
// version.
func Assignors() []Assignor { return all.All() }

// Ref names an assignor and version, as "sticky@1": the form of a policy's
// task_assignor and of AssignTasksResponse.assignor.
func Ref(a Assignor) string { return versioned.Ref(a) }

// Lookup finds a task assignor by name and version; version 0 is 1.
func Lookup(name string, version int) (Assignor, bool) { return all.Lookup(name, version) }
