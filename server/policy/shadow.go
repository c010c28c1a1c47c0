package policy

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/internal/clip"
)

// Shadow outcomes, the outcome attribute of assignd.policy.shadow.runs.
const (
	ShadowCompared    = "compared"
	ShadowError       = "error"
	ShadowPanic       = "panic"
	ShadowSkippedBusy = "skipped_busy"
	ShadowSkippedSize = "skipped_size"
)

// shadowRunner evaluates shadow assignors in the background.
//
// Observe is called on the request path, so it only checks the size limit,
// takes a slot without waiting, and starts a goroutine; the shadow runs
// while the response is sent. A shadow that finds no free slot is skipped:
// shadows are a sample for comparison, and dropping some is better than
// queueing work a loaded server cannot afford. The goroutine reads the
// group and result after Observe returned; the server neither modifies nor
// reuses them (see [selection.Selection].Observe).
type shadowRunner struct {
	slots         chan struct{}
	maxPartitions int
	run           runFunc
	recorder      func(context.Context, ShadowRun)
	m             *instruments
	logger        *slog.Logger

	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

func newShadowRunner(c config, m *instruments) *shadowRunner {
	if c.shadowConcurrency == 0 {
		return nil
	}
	return &shadowRunner{
		slots: make(chan struct{}, c.shadowConcurrency), maxPartitions: c.shadowMaxPartitions,
		run: c.run, recorder: c.shadowRecorder, m: m, logger: c.logger,
	}
}

// shadowJob is what one comparison needs besides the group and result.
type shadowJob struct {
	group    string
	rule     *rule
	revision string
	primary  assign.Assignor
	protocol string // the group's protocol name
}

func (j shadowJob) attrs(extra ...attribute.KeyValue) metric.MeasurementOption {
	kv := append([]attribute.KeyValue{
		attribute.String("rule", j.rule.name),
		attribute.String("revision", j.revision),
		attribute.String("assignor", assign.Ref(j.primary)),
		attribute.String("shadow", assign.Ref(j.rule.shadow.assignor)),
	}, extra...)
	return metric.WithAttributes(kv...)
}

// observer returns the Selection.Observe function for one selection.
func (s *shadowRunner) observer(j shadowJob) func(context.Context, *assign.Group, *assign.Result, time.Duration) {
	return func(ctx context.Context, g *assign.Group, r *assign.Result, took time.Duration) {
		s.submit(ctx, j, g, r, took)
	}
}

func (s *shadowRunner) submit(ctx context.Context, j shadowJob, g *assign.Group, r *assign.Result, took time.Duration) {
	if n := partitionCount(g); s.maxPartitions > 0 && n > s.maxPartitions {
		s.m.shadowRuns.Add(ctx, 1, j.attrs(attribute.String("outcome", ShadowSkippedSize)))
		return
	}
	select {
	case s.slots <- struct{}{}:
	default:
		s.m.shadowRuns.Add(ctx, 1, j.attrs(attribute.String("outcome", ShadowSkippedBusy)))
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		<-s.slots
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	// The shadow outlives the call: keep the context's values (trace, log
	// correlation), not its cancellation.
	bg := context.WithoutCancel(ctx)
	go func() {
		defer s.wg.Done()
		defer func() { <-s.slots }()
		s.compare(bg, j, g, r, took)
	}()
}

// compare runs the shadow on the group as the primary saw it, under the
// protocol the primary ran (the request may have left it unspecified, and
// the shadow's default could differ), and records the difference. A panic
// in a shadow assignor, which may be a version under evaluation, is
// contained here: nothing outside the request's recovery interceptor
// would catch it.
func (s *shadowRunner) compare(ctx context.Context, j shadowJob, g *assign.Group, r *assign.Result, took time.Duration) {
	defer func() {
		if p := recover(); p != nil {
			s.m.shadowRuns.Add(ctx, 1, j.attrs(attribute.String("outcome", ShadowPanic)))
			s.logger.LogAttrs(ctx, slog.LevelError, "policy shadow panicked", j.logAttrs(slog.Any("panic", fmt.Sprint(p)))...)
		}
	}()
	sg := *g
	sg.Protocol = r.Protocol
	start := time.Now()
	sr, err := s.run(j.rule.shadow.assignor, &sg, j.rule.shadow.options...)
	stook := time.Since(start)
	if err != nil {
		s.m.shadowRuns.Add(ctx, 1, j.attrs(attribute.String("outcome", ShadowError)))
		s.logger.LogAttrs(ctx, slog.LevelWarn, "policy shadow failed", j.logAttrs(slog.String("error", clip.String(err.Error(), 1024)))...)
		return
	}
	s.m.shadowRuns.Add(ctx, 1, j.attrs(attribute.String("outcome", ShadowCompared)))
	s.record(ctx, j, "primary", r, took)
	s.record(ctx, j, "shadow", sr, stook)
	if s.recorder != nil {
		s.recorder(ctx, ShadowRun{
			Group: j.group, ProtocolName: j.protocol, Rule: j.rule.name, Revision: j.revision,
			Shadow: assign.Ref(j.rule.shadow.assignor), Primary: assign.Ref(j.primary), Input: &sg, Result: sr, Took: stook,
		})
	}
	s.logger.LogAttrs(ctx, slog.LevelInfo, "policy shadow comparison", j.logAttrs(
		slog.String("protocol", r.Protocol.String()),
		slog.Int("members", len(g.Members)),
		slog.Int("partitions", r.Stats.Partitions+r.Stats.Pending),
		slog.Int("moved", r.Stats.Moved), slog.Int("shadow_moved", sr.Stats.Moved),
		slog.Int("imbalance", r.Stats.Imbalance), slog.Int("shadow_imbalance", sr.Stats.Imbalance),
		slog.Bool("followup", r.FollowupRequired), slog.Bool("shadow_followup", sr.FollowupRequired),
		slog.Duration("duration", took), slog.Duration("shadow_duration", stook),
	)...)
}

func (s *shadowRunner) record(ctx context.Context, j shadowJob, side string, r *assign.Result, took time.Duration) {
	opt := j.attrs(attribute.String("side", side))
	s.m.shadowMoved.Add(ctx, int64(r.Stats.Moved), opt)
	s.m.shadowImbalance.Record(ctx, int64(r.Stats.Imbalance), opt)
	s.m.shadowDuration.Record(ctx, took.Seconds(), opt)
	if r.FollowupRequired {
		s.m.shadowFollowups.Add(ctx, 1, opt)
	}
}

func (j shadowJob) logAttrs(extra ...slog.Attr) []slog.Attr {
	return append([]slog.Attr{
		slog.String("group", clip.String(j.group, clip.Short)),
		slog.String("rule", j.rule.name),
		slog.String("revision", j.revision),
		slog.String("assignor", assign.Ref(j.primary)),
		slog.String("shadow", assign.Ref(j.rule.shadow.assignor)),
	}, extra...)
}

// close waits for running shadows; later ones are dropped.
func (s *shadowRunner) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.wg.Wait()
}

func partitionCount(g *assign.Group) int {
	n := 0
	for _, t := range g.Topics {
		if t.Partitions > 0 {
			n += int(t.Partitions)
		}
	}
	return n
}
