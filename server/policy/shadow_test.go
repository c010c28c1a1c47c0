package policy_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/policytest"
)

// scaleOut is a cooperative group where a owns all 12 partitions and b, c
// just joined: balancing it moves 8 partitions.
func scaleOut() *assign.Group {
	return assigntest.NewGroup().Protocol(assign.Cooperative).Generation(5).Topic("t", 12).
		Member("a", "t").Owns("a", "t", 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11).Gen("a", 4).
		Member("b", "t").Member("c", "t").Build()
}

type shadowEnv struct {
	src  *policy.Source
	m    *meter
	logs *logBuffer
	rev  string
}

func newShadowEnv(t *testing.T, opts ...policy.Option) *shadowEnv {
	t.Helper()
	m := newMeter(t)
	logs := &logBuffer{}
	p := mustParse(t, policytest.CappedShadowed)
	opts = append([]policy.Option{
		policy.WithMeterProvider(m.provider),
		policy.WithLogger(slog.New(slog.NewTextHandler(logs, nil))),
	}, opts...)
	src := policytest.ServePolicy(t, p, opts...)
	return &shadowEnv{src: src, m: m, logs: logs, rev: p.Revision()}
}

// assign selects, runs the primary and calls Observe, as the server does.
func (e *shadowEnv) assign(t *testing.T, g *assign.Group) (selection.Selection, *assign.Result) {
	t.Helper()
	sel, err := e.src.Select(context.Background(), selection.Query{GroupID: "orders", ProtocolName: "cooperative-sticky", Protocol: g.Protocol})
	if err != nil {
		t.Fatal(err)
	}
	if sel.Observe == nil {
		t.Fatal("no Observe for a rule with a shadow")
	}
	start := time.Now()
	r := runSelected(t, sel, g)
	took := time.Since(start)
	observed := make(chan struct{})
	go func() { sel.Observe(context.Background(), g, r, took); close(observed) }()
	select {
	case <-observed:
	case <-time.After(2 * time.Second):
		t.Fatal("Observe blocked the request path")
	}
	return sel, r
}

func (e *shadowEnv) runs(t *testing.T, outcome string) int64 {
	n, _ := e.m.value(t, "assignd.policy.shadow.runs", map[string]string{"outcome": outcome, "rule": "capped", "revision": e.rev})
	return n
}

func TestShadowComparison(t *testing.T) {
	env := newShadowEnv(t)
	g := scaleOut()
	_, r := env.assign(t, g)
	if err := env.src.Close(); err != nil { // waits for the shadow
		t.Fatal(err)
	}
	// What the shadow should have seen, computed independently.
	want, err := assign.Run(assign.CooperativeSticky(), g)
	if err != nil {
		t.Fatal(err)
	}
	if r.Stats.Moved != 1 || want.Stats.Moved != 8 {
		t.Fatalf("scenario changed: primary moved %d, uncapped %d", r.Stats.Moved, want.Stats.Moved)
	}

	if n := env.runs(t, policy.ShadowCompared); n != 1 {
		t.Errorf("runs{compared} = %d, want 1", n)
	}
	base := map[string]string{"rule": "capped", "revision": env.rev, "assignor": "cooperative-sticky@1", "shadow": "cooperative-sticky@1"}
	side := func(s string) map[string]string {
		m := map[string]string{"side": s}
		for k, v := range base {
			m[k] = v
		}
		return m
	}
	for _, tc := range []struct {
		metric string
		side   string
		want   int64
	}{
		{"assignd.policy.shadow.moved", "primary", 1},
		{"assignd.policy.shadow.moved", "shadow", 8},
		{"assignd.policy.shadow.followups", "primary", 1},
		{"assignd.policy.shadow.followups", "shadow", 1},
		{"assignd.policy.shadow.imbalance", "primary", 1}, // histogram: one point each
		{"assignd.policy.shadow.imbalance", "shadow", 1},
		{"assignd.policy.shadow.duration", "primary", 1},
		{"assignd.policy.shadow.duration", "shadow", 1},
	} {
		if n, ok := env.m.value(t, tc.metric, side(tc.side)); !ok || n != tc.want {
			t.Errorf("%s{side=%s} = %d (%t), want %d", tc.metric, tc.side, n, ok, tc.want)
		}
	}

	lines := env.logs.lines("policy shadow comparison")
	if len(lines) != 1 {
		t.Fatalf("want one comparison log line, got %q", env.logs.String())
	}
	for _, kv := range []string{"group=orders", "rule=capped", "revision=" + env.rev, "shadow=cooperative-sticky@1",
		"moved=1", "shadow_moved=8", "imbalance=" + strconv.Itoa(r.Stats.Imbalance), "shadow_imbalance=" + strconv.Itoa(want.Stats.Imbalance),
		"followup=true", "protocol=COOPERATIVE"} {
		if !strings.Contains(lines[0], kv) {
			t.Errorf("log line lacks %s: %s", kv, lines[0])
		}
	}
}

func TestShadowSkipsLargeGroups(t *testing.T) {
	env := newShadowEnv(t, policy.WithShadowMaxPartitions(11))
	env.assign(t, scaleOut())
	_ = env.src.Close()
	if n := env.runs(t, policy.ShadowSkippedSize); n != 1 {
		t.Errorf("runs{skipped_size} = %d, want 1", n)
	}
	if n := env.runs(t, policy.ShadowCompared); n != 0 {
		t.Errorf("runs{compared} = %d, want 0", n)
	}
}

// With every slot taken, a shadow is skipped at once rather than queued,
// and Observe never waits.
func TestShadowSkipsWhenBusy(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	slow := func(a assign.Assignor, g *assign.Group, opts ...assign.Option) (*assign.Result, error) {
		close(started)
		<-release
		return assign.Run(a, g, opts...)
	}
	env := newShadowEnv(t, policy.WithRunFunc(slow), policy.WithShadowConcurrency(1))
	env.assign(t, scaleOut())
	<-started
	env.assign(t, scaleOut())
	if n := env.runs(t, policy.ShadowSkippedBusy); n != 1 {
		t.Errorf("runs{skipped_busy} = %d, want 1", n)
	}
	close(release)
	_ = env.src.Close()
	if n := env.runs(t, policy.ShadowCompared); n != 1 {
		t.Errorf("runs{compared} = %d, want 1", n)
	}
}

func TestShadowFailuresAreContained(t *testing.T) {
	for _, tc := range []struct {
		outcome string
		run     func(assign.Assignor, *assign.Group, ...assign.Option) (*assign.Result, error)
		log     string
	}{
		{policy.ShadowError, func(assign.Assignor, *assign.Group, ...assign.Option) (*assign.Result, error) {
			return nil, errors.New("boom")
		}, "policy shadow failed"},
		{policy.ShadowPanic, func(assign.Assignor, *assign.Group, ...assign.Option) (*assign.Result, error) {
			panic("shadow bug")
		}, "policy shadow panicked"},
	} {
		t.Run(tc.outcome, func(t *testing.T) {
			env := newShadowEnv(t, policy.WithRunFunc(tc.run))
			env.assign(t, scaleOut())
			_ = env.src.Close()
			if n := env.runs(t, tc.outcome); n != 1 {
				t.Errorf("runs{%s} = %d, want 1", tc.outcome, n)
			}
			if len(env.logs.lines(tc.log, "group=orders", "rule=capped")) != 1 {
				t.Errorf("want one %q line, got %q", tc.log, env.logs.String())
			}
			if n, ok := env.m.value(t, "assignd.policy.shadow.moved", nil); ok {
				t.Errorf("a failed shadow recorded moves (%d)", n)
			}
		})
	}
}

func TestShadowDisabled(t *testing.T) {
	env := newShadowEnv(t, policy.WithShadowConcurrency(0))
	sel, err := env.src.Select(context.Background(), selection.Query{GroupID: "g", ProtocolName: "cooperative-sticky"})
	if err != nil {
		t.Fatal(err)
	}
	if sel.Observe != nil {
		t.Error("Observe set with shadows disabled")
	}
}

// After Close, selections still work and Observe does nothing.
func TestShadowAfterClose(t *testing.T) {
	env := newShadowEnv(t)
	_ = env.src.Close()
	env.assign(t, scaleOut())
	if n, ok := env.m.value(t, "assignd.policy.shadow.runs", nil); ok {
		t.Errorf("a shadow ran after Close (%d)", n)
	}
}
