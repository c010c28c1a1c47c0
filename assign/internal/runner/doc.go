// Package runner holds the run that the assignor families beside the
// consumer engine (assign/share, assign/task) share: its options, the
// polling of its context, and the error of a group that fails validation.
// Like assign, it is pure: no I/O, no clocks.
package runner
