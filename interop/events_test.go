//go:build unix

package interop

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// event is one JSON line a member subprocess printed; kind is its "ev",
// and a "record" event is a record it consumed.
type event interface {
	kind() string
	record() (p tp, offset int64, value string)
}

func (e kjEvent) kind() string { return e.Ev }
func (e kjEvent) record() (tp, int64, string) {
	return tp{Topic: e.Topic, Partition: e.Partition}, e.Offset, e.Value
}
func (e pyEvent) kind() string { return e.Ev }
func (e pyEvent) record() (tp, int64, string) {
	return tp{Topic: e.Topic, Partition: e.Partition}, e.Offset, e.Value
}

// memberEnv is the environment every member script that prints events
// reads (examples/node/consumer.js, testdata/*_member.py): the cluster,
// assignd (none: the client's built-in assignor), the group and its
// topics, the member's client id, and these tests' group timeouts.
func memberEnv(name string, brokers []string, assignd, group string, topics []string) []string {
	return []string{
		"KAFKA_BROKERS=" + strings.Join(brokers, ","),
		"ASSIGND_TARGET=" + assignd,
		"GROUP_ID=" + group,
		"TOPICS=" + strings.Join(topics, ","),
		"CLIENT_ID=" + name,
		fmt.Sprintf("SESSION_TIMEOUT_MS=%d", sessionTimeout.Milliseconds()),
		fmt.Sprintf("HEARTBEAT_INTERVAL_MS=%d", heartbeat.Milliseconds()),
		fmt.Sprintf("REBALANCE_TIMEOUT_MS=%d", rebalanceTimeout.Milliseconds()),
		"ASSIGND_TIMEOUT_MS=2000",
	}
}

// startMember starts a member script (args...) in dir with env added to
// the environment, and hands each line it prints on stdout to onEvent, with
// the time it was read; stderr is only kept for failure reports.
func startMember(t *testing.T, name, dir string, env []string, onEvent func(line string, at time.Time), args ...string) *proc {
	t.Helper()
	return startProc(t, name, dir, env, func(stream, line string, at time.Time) {
		if stream == "stdout" {
			onEvent(line, at)
		}
	}, args...)
}

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

// read decodes a line member name printed: a record goes to led, and
// ok is false for it as for garbage; any other event is returned to be
// handled, then added.
func (l *eventLog[E]) read(line string, at time.Time, name string, led *ledger) (ev E, ok bool) {
	ev, ok = l.decode(line)
	if ok && ev.kind() == "record" {
		p, offset, value := ev.record()
		led.Consume(name, p, offset, value, at)
		return ev, false
	}
	return ev, ok
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
