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

// kjEvent is one line consumer.js printed.
type kjEvent struct {
	Ev         string             `json:"ev"`
	MemberID   string             `json:"memberId"`
	LeaderID   string             `json:"leaderId"`
	IsLeader   bool               `json:"isLeader"`
	Protocol   string             `json:"protocol"`
	Assignment map[string][]int32 `json:"assignment"`
	Generation int32              `json:"generation"`
	Source     string             `json:"source"`
	Members    int                `json:"members"`
	Error      string             `json:"error"`
	Topic      string             `json:"topic"`
	Partition  int32              `json:"partition"`
	Offset     int64              `json:"offset"`
	Value      string             `json:"value"`
}

// kafkajsMember is one KafkaJS consumer (examples/node/consumer.js) in a
// subprocess, reporting to a ledger.
type kafkajsMember struct {
	name string
	p    *proc

	mu     sync.Mutex
	events []kjEvent // every event but records, in order
	bad    []string  // stdout lines that were not events
}

// kafkajsConfig is what a KafkaJS member is told.
type kafkajsConfig struct {
	brokers   []string
	assignd   string
	group     string
	topics    []string
	protocols []string
}

func startKafkaJS(t *testing.T, name string, cfg kafkajsConfig, led *ledger) *kafkajsMember {
	t.Helper()
	m := &kafkajsMember{name: name}
	env := []string{
		"KAFKA_BROKERS=" + strings.Join(cfg.brokers, ","),
		"ASSIGND_TARGET=" + cfg.assignd,
		"GROUP_ID=" + cfg.group,
		"TOPICS=" + strings.Join(cfg.topics, ","),
		"PROTOCOLS=" + strings.Join(cfg.protocols, ","),
		"CLIENT_ID=" + name,
		fmt.Sprintf("SESSION_TIMEOUT_MS=%d", sessionTimeout.Milliseconds()),
		fmt.Sprintf("HEARTBEAT_INTERVAL_MS=%d", heartbeat.Milliseconds()),
		fmt.Sprintf("REBALANCE_TIMEOUT_MS=%d", rebalanceTimeout.Milliseconds()),
		"MAX_WAIT_MS=100",
		"ASSIGND_TIMEOUT_MS=2000",
	}
	m.p = startProc(t, name, nodeExample, env, func(stream, line string, at time.Time) {
		if stream == "stdout" {
			m.handle(line, at, led)
		}
	}, "node", "consumer.js")
	return m
}

func (m *kafkajsMember) handle(line string, at time.Time, led *ledger) {
	var ev kjEvent
	if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Ev == "" {
		m.mu.Lock()
		m.bad = append(m.bad, line)
		m.mu.Unlock()
		return
	}
	switch ev.Ev {
	case "record":
		led.Consume(m.name, tp{Topic: ev.Topic, Partition: ev.Partition}, ev.Offset, ev.Value, at)
		return
	case "rebalancing", "stopping":
		// Eager: the member gives up everything before it rejoins or leaves.
		led.RevokedAll(m.name, at, "revoked")
	case "joined":
		led.Replaced(m.name, setOfMap(ev.Assignment), at)
	}
	m.mu.Lock()
	m.events = append(m.events, ev)
	m.mu.Unlock()
}

// eventsOf returns the member's events of kind ev, in order.
func (m *kafkajsMember) eventsOf(kind string) []kjEvent {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []kjEvent
	for _, e := range m.events {
		if e.Ev == kind {
			out = append(out, e)
		}
	}
	return out
}

// lastJoin returns the member's last "joined" event.
func (m *kafkajsMember) lastJoin() (kjEvent, bool) {
	js := m.eventsOf("joined")
	if len(js) == 0 {
		return kjEvent{}, false
	}
	return js[len(js)-1], true
}

// id returns the member id of its last join.
func (m *kafkajsMember) id() string {
	j, _ := m.lastJoin()
	return j.MemberID
}

// garbage returns stdout lines that were not events: consumer.js must keep
// stdout for events only.
func (m *kafkajsMember) garbage() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.bad)
}
