//go:build unix

package interop

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// kafkaPythonMember is the kafka-python consumer script, relative to this
// package.
var kafkaPythonMember = filepath.Join("testdata", "kafka_python_member.py")

// confluentKafkaMember is the confluent-kafka (librdkafka) consumer script.
var confluentKafkaMember = filepath.Join("testdata", "confluent_kafka_member.py")

// requirePython returns the interpreter of client/python's venv
// (ASSIGND_PYTHON, else ../.cache/python/venv/bin/python, where
// scripts/test.sh makes it) after checking that it imports kafka-python 3.x
// and the assignd package.
func requirePython(t *testing.T) string {
	t.Helper()
	py := os.Getenv("ASSIGND_PYTHON")
	if py == "" {
		py = filepath.Join("..", ".cache", "python", "venv", "bin", "python")
	}
	abs, err := filepath.Abs(py)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(abs); err != nil {
		missingPrerequisite(t, "no Python venv at %s: run scripts/test.sh (its install step makes it) or set ASSIGND_PYTHON", abs)
	}
	out, err := exec.Command(abs, "-c", "import kafka, confluent_kafka, assignd.v1.assignment_pb2_grpc; print(kafka.__version__, confluent_kafka.__version__)").CombinedOutput()
	if err != nil {
		missingPrerequisite(t, "%s cannot import kafka-python, confluent-kafka and assignd (run scripts/test.sh's install step): %v\n%s", abs, err, out)
	}
	if v := strings.Fields(string(out)); len(v) != 2 || !strings.HasPrefix(v[0], "3.") || !strings.HasPrefix(v[1], "2.") {
		t.Fatalf("the venv has kafka-python and confluent-kafka %q; client/python pins 3.x and 2.x", out)
	}
	return abs
}

// pyEvent is one line kafka_python_member.py printed.
type pyEvent struct {
	Ev         string             `json:"ev"`
	Partitions map[string][]int32 `json:"partitions"`
	MemberID   string             `json:"memberId"`
	Generation int32              `json:"generation"`
	Leader     bool               `json:"leader"`
	Stats      map[string]int     `json:"stats"`
	Topic      string             `json:"topic"`
	Partition  int32              `json:"partition"`
	Offset     int64              `json:"offset"`
	Value      string             `json:"value"`
	Error      string             `json:"error"`
}

// pyMember is one kafka-python consumer in a subprocess, reporting to a
// ledger: "assigned" and "revoked" carry only the partitions that changed,
// under both rebalance protocols (kafka-python's listener contract).
type pyMember struct {
	name string
	p    *proc

	eventLog[pyEvent]
}

// pyConfig is what a kafka-python member is told. An empty assignd makes
// it a plain member on kafka-python's built-in assignor.
type pyConfig struct {
	python   string
	script   string // kafkaPythonMember unless set
	brokers  []string
	assignd  string
	group    string
	topics   []string
	protocol string
}

func startKafkaPython(t *testing.T, name string, cfg pyConfig, led *ledger) *pyMember {
	t.Helper()
	m := &pyMember{name: name}
	env := append(memberEnv(name, cfg.brokers, cfg.assignd, cfg.group, cfg.topics), "PROTOCOL="+cfg.protocol, "PYTHONUNBUFFERED=1")
	m.p = startMember(t, name, ".", env, func(line string, at time.Time) { m.handle(line, at, led) },
		cfg.python, cmp.Or(cfg.script, kafkaPythonMember))
	return m
}

func (m *pyMember) handle(line string, at time.Time, led *ledger) {
	ev, ok := m.read(line, at, m.name, led)
	if !ok {
		return
	}
	switch ev.Ev {
	case "assigned":
		led.Assigned(m.name, setOfMap(ev.Partitions), at)
	case "revoked":
		led.Revoked(m.name, setOfMap(ev.Partitions), at, "revoked")
	case "stopped":
		led.RevokedAll(m.name, at, "revoked")
	}
	m.add(ev)
}

// last returns the member's last "state" event: its member id, generation,
// leadership and (with assignd) the assignor's counters.
func (m *pyMember) last() pyEvent {
	as := m.eventsOf("state")
	if len(as) == 0 {
		return pyEvent{}
	}
	return as[len(as)-1]
}

func (m *pyMember) id() string { return m.last().MemberID }

// running wraps cond so that a wait ends at once, failing the test, when
// one of the kafka-python members has exited (a crash, a missing module)
// instead of running into its timeout.
func running(t *testing.T, cond func() bool, ms ...*pyMember) func() bool {
	return func() bool {
		for _, m := range ms {
			if m.p.exited() {
				t.Fatalf("%s exited (%v); its last output:\n%s", m.name, m.p.exitErr(), m.p.lastLines())
			}
		}
		return cond()
	}
}
