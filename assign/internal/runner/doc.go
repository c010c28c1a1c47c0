// Package runner holds the run that the assignor families beside the
// consumer engine (assign/share, assign/task) share: its options, the
// polling of its context, the checks and the error of a group that fails
// validation, and the [Family] that ties a registry of versions to the
// run.
// Like assign, it is pure: no I/O, no clocks.
package runner
