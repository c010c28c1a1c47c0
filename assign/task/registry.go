package task

import "github.com/assignd/assignd/assign/internal/runner"

// Assignor is a task assignor of a given name and version. Every
// implementation lives in this package, and a new version leaves the old
// one runnable, so that a policy can roll back to it.
type Assignor interface {
	Name() string
	Version() int
	plan(p *planner)
}

// family is every task assignor and the run they share.
var family = runner.NewFamily(newPlanner, place, (*planner).result, Sticky())

// place lets a plan a group's tasks; a group without members has none
// placed.
func place(a Assignor, p *planner) {
	if len(p.members) > 0 {
		a.plan(p)
	}
}

// Assignors lists the task assignors a policy may name, by name, then
// version.
func Assignors() []Assignor { return family.All() }

// Ref names an assignor and version, as "sticky@1": the form of a policy's
// task_assignor and of AssignTasksResponse.assignor.
func Ref(a Assignor) string { return family.Ref(a) }

// Lookup finds a task assignor by name and version; version 0 is 1.
func Lookup(name string, version int) (Assignor, bool) { return family.Lookup(name, version) }
