//go:build unix

package interop

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// kcat (librdkafka's command-line client) reports its group membership on
// stderr from its rebalance callback, one line per callback:
//
//	% Group g rebalanced: incremental assignment of 2 partition(s) (memberid rdkafka-…, COOPERATIVE rebalance protocol): orders [2], orders [3]
//	% Group g rebalanced: incremental revoke of 2 partition(s) (memberid rdkafka-…, COOPERATIVE rebalance protocol): orders [2], orders [3]
//	% Group g rebalanced: incremental revoke of 2 partition(s) (memberid , assignment lost, COOPERATIVE rebalance protocol): orders [2], orders [3]
//
// (the last when the coordinator no longer knows the member: its session
// expired and its partitions may already be someone else's)
// (these tests run kcat in cooperative groups only; under the eager
// protocol kcat prints "assigned:" and "revoked:" lines, which are not
// parsed here). The line is printed before kcat
// hands the change to librdkafka, and librdkafka rejoins only after the
// callback returned, so a revoke line is read before any other member can
// be given those partitions. Records go to stdout in the -f format below.
var (
	kcatRebalance = regexp.MustCompile(`^% Group \S+ rebalanced: incremental (assignment|revoke) of \d+ partition\(s\) \(memberid ([^,]*), (assignment lost, )?[^)]*\): ?(.*)$`)
	kcatPartition = regexp.MustCompile(`(\S+) \[(\d+)\]`)
)

// kcatFormat prints topic, partition, offset and value of each record.
const kcatFormat = `%t %p %o %s\n`

// kcatMember is one kcat -G consumer in a subprocess, reporting to a
// ledger.
type kcatMember struct {
	name string
	p    *proc

	mu       sync.Mutex
	memberID string
	bad      []string // stdout lines that are not records
}

// kcatConfig is what kcat members are told.
type kcatConfig struct {
	broker   string
	group    string
	topics   []string
	strategy string // partition.assignment.strategy
}

func startKcat(t *testing.T, name string, cfg kcatConfig, led *ledger) *kcatMember {
	t.Helper()
	m := &kcatMember{name: name}
	args := []string{"kcat", "-C", "-u", "-b", cfg.broker, "-G", cfg.group}
	args = append(args, cfg.topics...)
	args = append(args,
		"-f", kcatFormat,
		"-X", "partition.assignment.strategy="+cfg.strategy,
		"-X", fmt.Sprintf("session.timeout.ms=%d", sessionTimeout.Milliseconds()),
		"-X", fmt.Sprintf("heartbeat.interval.ms=%d", heartbeat.Milliseconds()),
		// librdkafka sends max.poll.interval.ms as its rebalance timeout,
		// the time the coordinator waits for it to rejoin: keep it short.
		"-X", fmt.Sprintf("max.poll.interval.ms=%d", rebalanceTimeout.Milliseconds()),
		"-X", "auto.offset.reset=earliest",
		"-X", "auto.commit.interval.ms=200",
		"-X", "fetch.wait.max.ms=100",
	)
	m.p = startProc(t, name, ".", nil, func(stream, line string, at time.Time) {
		if stream == "stdout" {
			m.record(line, at, led)
		} else {
			m.stderr(line, at, led)
		}
	}, args...)
	return m
}

func (m *kcatMember) record(line string, at time.Time, led *ledger) {
	f := strings.Fields(line)
	if len(f) == 4 {
		p, err1 := strconv.ParseInt(f[1], 10, 32)
		o, err2 := strconv.ParseInt(f[2], 10, 64)
		if err1 == nil && err2 == nil {
			led.Consume(m.name, tp{Topic: f[0], Partition: int32(p)}, o, f[3], at)
			return
		}
	}
	m.mu.Lock()
	m.bad = append(m.bad, line)
	m.mu.Unlock()
}

func (m *kcatMember) stderr(line string, at time.Time, led *ledger) {
	g := kcatRebalance.FindStringSubmatch(line)
	if g == nil {
		return
	}
	tps := make(tpSet)
	for _, pm := range kcatPartition.FindAllStringSubmatch(g[4], -1) {
		p, _ := strconv.ParseInt(pm[2], 10, 32)
		tps[tp{Topic: pm[1], Partition: int32(p)}] = struct{}{}
	}
	m.mu.Lock()
	if g[2] != "" {
		m.memberID = g[2]
	}
	m.mu.Unlock()
	switch {
	case g[1] == "assignment":
		led.Assigned(m.name, tps, at)
	case g[3] != "":
		led.Revoked(m.name, tps, at, "lost")
	default:
		led.Revoked(m.name, tps, at, "revoked")
	}
}

// stop sends SIGTERM and waits for kcat to leave the group. kcat stops
// consuming the moment it gets the signal, but librdkafka may send
// LeaveGroup before it runs the final revoke callback, so the ledger
// records the revocation at the signal, which is when kcat really stopped.
func (m *kcatMember) stop(t *testing.T, led *ledger) {
	t.Helper()
	led.RevokedAll(m.name, time.Now(), "revoked")
	if err := m.p.stop(15 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// id returns the member id kcat last reported.
func (m *kcatMember) id() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.memberID
}

// garbage returns stdout lines that were not records.
func (m *kcatMember) garbage() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.bad...)
}
