// Package consoletest runs the group observatory end to end: a fleet of
// consumer groups of real franz-go consumers on kfake, led through the
// kgoassign shim, with joins, leaves, a rolling restart, a flapping member,
// a crash and a rebalance led by the fallback while assignd is down; the
// history and signals they leave; and the console showing them in headless
// Chromium. It holds tests only.
package consoletest
