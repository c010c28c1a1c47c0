package rollout_test

import (
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/rollout"
	"github.com/assignd/assignd/testbed/policytest"
)

// clock is a manual clock shared by a test's replicas.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// sharedLog is a totally ordered log that each replica reads at its own
// pace: what Kafka's one partition is to the fleet.
type sharedLog struct {
	mu   sync.Mutex
	recs []*assigndv1.RolloutEvent
}

func (l *sharedLog) Publish(ev *assigndv1.RolloutEvent) {
	l.mu.Lock()
	l.recs = append(l.recs, proto.CloneOf(ev))
	l.mu.Unlock()
}

func (l *sharedLog) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recs)
}

// replica is one Controller reading the shared log up to read.
type replica struct {
	c    *rollout.Controller
	src  *policy.Source
	read int
}

// clockedHistory is a manual clock and a history that reads it.
func clockedHistory(t *testing.T) (*clock, *history.Store) {
	t.Helper()
	clk := newClock()
	h, err := history.New(history.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	return clk, h
}

// newSource serves p, its meters unread, until the test ends.
func newSource(t *testing.T, p *policy.Policy) *policy.Source {
	t.Helper()
	return policytest.ServePolicy(t, p, policy.WithMeterProvider(noop.NewMeterProvider()))
}

func newReplica(t *testing.T, name string, p *policy.Policy, h *history.Store, l *sharedLog, clk *clock, opts ...rollout.Option) *replica {
	t.Helper()
	src := newSource(t, p)
	c, err := rollout.New(src, h, l, append([]rollout.Option{rollout.WithClock(clk.Now), rollout.WithReplica(name),
		rollout.WithSwitchDelay(5 * time.Second), rollout.WithEvaluateEvery(10 * time.Second),
		rollout.WithMeterProvider(noop.NewMeterProvider())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &replica{c: c, src: src}
}

// catchUp applies the log's records not read yet.
func (r *replica) catchUp(l *sharedLog) {
	l.mu.Lock()
	recs := l.recs[r.read:]
	r.read = len(l.recs)
	l.mu.Unlock()
	for _, ev := range recs {
		r.c.Apply(ev)
	}
}

// serving returns the step and basis points the replica serves for rule
// at now.
func (r *replica) serving(rule string, now time.Time) (int, int) {
	v := r.src.Steps()
	p := r.src.Policy()
	if v == nil || v.Revision != p.Revision() {
		return 0, p.StagedRules()[0].Steps[0].BasisPoints
	}
	st, ok := v.Rules[rule]
	if !ok {
		return 0, p.StagedRules()[0].Steps[0].BasisPoints
	}
	return st.At(now)
}

func mustParse(t *testing.T, yaml string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// decision is a decision as the server records it.
type decision struct {
	group, rule, revision string
	at                    time.Time
	gen, moved, parts     int32
	withheld              int32 // not in parts: parts counts what is assigned this round
	followup              bool
	caller                string // common name; "" unauthenticated
	shadow                bool
}

func (d decision) record(h *history.Store) {
	rec := &assigndv1.Decision{
		Time: timestamppb.New(d.at), GroupId: d.group, GenerationId: d.gen, PolicyRule: d.rule, PolicyRevision: d.revision,
		Partitions: d.parts, Moved: d.moved, Withheld: d.withheld, FollowupRequired: d.followup, Shadow: d.shadow, ProtocolName: "cooperative-sticky",
		Assignor: "cooperative-sticky@1",
	}
	if d.caller != "" {
		rec.Caller = &assigndv1.CallerIdentity{CommonName: d.caller, Subject: "CN=" + d.caller}
	}
	h.Record(rec)
}

// tsAt is a record time s seconds after the test clock's start.
func tsAt(s int) *timestamppb.Timestamp {
	return timestamppb.New(newClock().Now().Add(time.Duration(s) * time.Second))
}
