//go:build unix

package interop

import (
	"encoding/json"
	"slices"
	"sync"
)

// event is one JSON line a member subprocess printed; kind is its "ev".
type event interface{ kind() string }

func (e kjEvent) kind() string { return e.Ev }
func (e pyEvent) kind() string { return e.Ev }

// eventLog is what a member subprocess printed on stdout: its events but
// records, in order, and the lines that were not events (a member must
// keep stdout for events only).
type eventLog[E event] struct {
	mu     sync.Mutex
	events []E
	bad    []string
}

// decode reads line as an event; a line that is not one is kept as
// garbage, and ok is false.
func (l *eventLog[E]) decode(line string) (ev E, ok bool) {
	if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.kind() == "" {
		l.mu.Lock()
		l.bad = append(l.bad, line)
		l.mu.Unlock()
		return ev, false
	}
	return ev, true
}

// add logs ev.
func (l *eventLog[E]) add(ev E) {
	l.mu.Lock()
	l.events = append(l.events, ev)
	l.mu.Unlock()
}

// eventsOf returns the events of kind, in order.
func (l *eventLog[E]) eventsOf(kind string) []E {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []E
	for _, e := range l.events {
		if e.kind() == kind {
			out = append(out, e)
		}
	}
	return out
}

// garbage returns the stdout lines that were not events.
func (l *eventLog[E]) garbage() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.bad)
}
