package rollout

import (
	"sync"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// Log carries rollout records to every replica in one total order. The
// replica's own records come back too: a record counts when it is read
// ([Controller.Apply]), not when it is published.
type Log interface {
	// Publish hands ev over without blocking for long; it may be lost
	// (the Controller publishes again what does not come back).
	Publish(ev *assigndv1.RolloutEvent)
}

// LogFunc adapts a function to Log.
type LogFunc func(ev *assigndv1.RolloutEvent)

// Publish calls f.
func (f LogFunc) Publish(ev *assigndv1.RolloutEvent) { f(ev) }

// LocalLog is the log of a replica alone (no shared history): a record is
// applied as it is published, in the order of publishing.
type LocalLog struct {
	mu    sync.Mutex
	apply func(*assigndv1.RolloutEvent)
}

// Attach makes the log apply its records to c (set it before c runs).
func (l *LocalLog) Attach(c *Controller) {
	l.mu.Lock()
	l.apply = c.Apply
	l.mu.Unlock()
}

// Publish applies ev at once.
func (l *LocalLog) Publish(ev *assigndv1.RolloutEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.apply != nil {
		l.apply(ev)
	}
}
