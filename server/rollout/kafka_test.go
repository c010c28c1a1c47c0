package rollout_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/assignd/assignd/internal/bus"
	"github.com/assignd/assignd/internal/kafkaconn"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/history/kafkalog"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/rollout"
	"github.com/assignd/assignd/testbed/policytest"
)

// kafkaReplica is one replica sharing the history topic: its Store, Log,
// policy Source and rollout Controller, as assignd wires them.
type kafkaReplica struct {
	name string
	h    *history.Store
	log  *kafkalog.Log
	bus  *bus.Bus
	src  *policy.Source
	c    *rollout.Controller
}

func startKafkaReplica(t *testing.T, name, broker string, p *policy.Policy) *kafkaReplica {
	t.Helper()
	b, err := bus.New(kafkaconn.Config{Brokers: broker}, bus.WithTopic("rollout-history"), bus.WithDeliveryTimeout(2*time.Second),
		bus.WithMeterProvider(noop.NewMeterProvider()),
		bus.WithKgoOptions(kgo.MetadataMinAge(100*time.Millisecond), kgo.FetchMaxWait(50*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := kafkalog.New(b)
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.New(history.WithReplica(name), history.WithPublisher(l))
	if err != nil {
		t.Fatal(err)
	}
	src, err := policy.NewSource(p, policy.WithMeterProvider(noop.NewMeterProvider()))
	if err != nil {
		t.Fatal(err)
	}
	rl := rollout.NewBusLog(b, nil)
	c, err := rollout.New(src, h, rl, rollout.WithReplica(name),
		rollout.WithTick(50*time.Millisecond), rollout.WithSwitchDelay(time.Second), rollout.WithEvaluateEvery(200*time.Millisecond),
		rollout.WithRetry(2*time.Second), rollout.WithRepublish(time.Second), rollout.WithMeterProvider(noop.NewMeterProvider()))
	if err != nil {
		t.Fatal(err)
	}
	rl.Attach(c)
	l.Start(h)
	b.Start()
	c.Start()
	r := &kafkaReplica{name: name, h: h, log: l, bus: b, src: src, c: c}
	t.Cleanup(r.stop)
	return r
}

// startKafkaFleet starts a one-broker kfake and three replicas, a to c,
// serving p through its history topic; it skips the test under -short.
func startKafkaFleet(t *testing.T, p *policy.Policy) (broker string, rs []*kafkaReplica) {
	t.Helper()
	if testing.Short() {
		t.Skip("kfake")
	}
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Close)
	broker = cluster.ListenAddrs()[0]
	for _, name := range []string{"a", "b", "c"} {
		rs = append(rs, startKafkaReplica(t, name, broker, p))
	}
	return broker, rs
}

func (r *kafkaReplica) stop() {
	if r.c == nil {
		return
	}
	r.c.Close()
	r.log.Close()
	r.bus.Close()
	r.src.Close()
	r.c = nil
}

// serving returns the step the replica serves for rule at now.
func (r *kafkaReplica) serving(rule string, now time.Time) (int, int) {
	v := r.src.Steps()
	first := r.src.Policy().StagedRules()[0].Steps[0].BasisPoints
	if v == nil {
		return 0, first
	}
	st, ok := v.Rules[rule]
	if !ok {
		return 0, first
	}
	return st.At(now)
}

var kafkaYAML = policytest.Canary("steps: [{percent: 10, hold: 2s}, {percent: 50, hold: 2s}, {percent: 80, hold: 2s}, {percent: 100}]")

// Three replicas sharing a history topic on kfake serve the same step of
// a rollout at every instant sampled, from its start to its end, while
// one of them restarts mid-rollout and reads the state back.
func TestKafkaReplicasAgree(t *testing.T) {
	p := mustParse(t, kafkaYAML)
	broker, rs := startKafkaFleet(t, p)
	restarted := false
	var seen []int
	deadline := time.Now().Add(60 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatalf("the rollout did not complete in time; steps served %v", seen)
		}
		now := time.Now()
		step := -1
		for _, r := range rs {
			if !r.c.Agreed(p.Revision()) {
				continue // still reading the log (a restart): not serving yet
			}
			s, _ := r.serving("canary", now)
			if step >= 0 && s != step {
				t.Fatalf("at %s replica %s serves step %d, another step %d", now.Format(time.StampMilli), r.name, s, step)
			}
			step = s
		}
		if step >= 0 && (len(seen) == 0 || seen[len(seen)-1] != step) {
			seen = append(seen, step)
		}
		if step == 1 && !restarted {
			restarted = true
			rs[2].stop()
			rs[2] = startKafkaReplica(t, "c", broker, p)
		}
		if step == 3 && rs[2].c.Agreed(p.Revision()) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if fmt.Sprint(seen) != "[0 1 2 3]" {
		t.Errorf("steps served %v, want [0 1 2 3]", seen)
	}
	for _, r := range rs {
		st := r.c.Status().GetRules()[0]
		if st.GetStep() != 3 || st.GetPercent() != 100 || !st.GetAgreed() {
			t.Errorf("replica %s: %v", r.name, st)
		}
	}
}

var kafkaGatedYAML = policytest.Canary("steps: [{percent: 50, hold: 1s}, {percent: 100}]", "gate: {min_groups: 1, max_moved_ratio: 0.25}")

// A halt is one record every replica reads: a decision one replica
// recorded (shared through the topic) fails the gate, all three halt at
// the same step, and a replica restarted afterwards reads the halt back.
func TestKafkaHaltIsShared(t *testing.T) {
	p := mustParse(t, kafkaGatedYAML)
	broker, rs := startKafkaFleet(t, p)
	deadline := time.Now().Add(30 * time.Second)
	// The decision is made once the rollout started (the gate reads the
	// decisions since the step began).
	for !rs[0].c.Agreed(p.Revision()) {
		if time.Now().After(deadline) {
			t.Fatal("replica a never agreed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	decision{group: "orders-7", rule: "canary", revision: p.Revision(), at: time.Now(), gen: 3, moved: 8, parts: 10}.record(rs[0].h)
	halted := func(r *kafkaReplica) bool {
		st := r.c.RuleStatus("canary")
		return st.GetHalted() && st.GetStep() == 0 && len(st.GetFailures()) == 1 && st.GetFailures()[0].GetGroupId() == "orders-7"
	}
	for !(halted(rs[0]) && halted(rs[1]) && halted(rs[2])) {
		if time.Now().After(deadline) {
			t.Fatalf("the replicas did not all halt: %v / %v / %v", rs[0].c.RuleStatus("canary"), rs[1].c.RuleStatus("canary"), rs[2].c.RuleStatus("canary"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	rs[2].stop()
	rs[2] = startKafkaReplica(t, "c", broker, p)
	for !halted(rs[2]) || !rs[2].c.Agreed(p.Revision()) {
		if time.Now().After(deadline) {
			t.Fatalf("the restarted replica did not read the halt back: %v", rs[2].c.RuleStatus("canary"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The halt holds: after the hold, no replica advances.
	time.Sleep(1500 * time.Millisecond)
	for _, r := range rs {
		if !halted(r) {
			t.Errorf("replica %s: %v", r.name, r.c.RuleStatus("canary"))
		}
	}
}
