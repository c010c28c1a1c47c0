//go:build unix

package interop

import (
	"strings"
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

	eventLog[kjEvent]
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
	env := append(memberEnv(name, cfg.brokers, cfg.assignd, cfg.group, cfg.topics),
		"PROTOCOLS="+strings.Join(cfg.protocols, ","), "MAX_WAIT_MS=100")
	m.p = startMember(t, name, nodeExample, env, func(line string, at time.Time) { m.handle(line, at, led) }, "node", "consumer.js")
	return m
}

func (m *kafkajsMember) handle(line string, at time.Time, led *ledger) {
	ev, ok := m.read(line, at, m.name, led)
	if !ok {
		return
	}
	switch ev.Ev {
	case "rebalancing", "stopping":
		// Eager: the member gives up everything before it rejoins or leaves.
		led.RevokedAll(m.name, at, "revoked")
	case "joined":
		led.Replaced(m.name, setOfMap(ev.Assignment), at)
	}
	m.add(ev)
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
