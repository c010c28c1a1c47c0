package policy

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/server/selection"
)

// Source serves the current policy revision to the server: it implements
// selection.Selector, adds shadow evaluation and metrics to Policy.Select, and,
// when made by Watch, replaces its Policy when the file changes. A request
// reads one revision from start to end (the revision is swapped atomically,
// never edited), so every response names the revision that chose it.
type Source struct {
	cfg config
	cur atomic.Pointer[Policy]
	// steps is the agreed state of the staged rules (server/rollout sets
	// it); nil serves them at their first step.
	steps   atomic.Pointer[StepView]
	m       *instruments
	shadows *shadowRunner
	reg     metric.Registration

	// Set by Watch.
	watch     *fileWatch
	closeOnce sync.Once
}

var _ selection.Selector = (*Source)(nil)

// NewSource serves a fixed policy (Default() when p is nil), e.g. the
// embedded default when assignd runs without --policy.
func NewSource(p *Policy, opts ...Option) (*Source, error) {
	if p == nil {
		p = Default()
	}
	return newSource(p, newConfig(opts), nil)
}

// newSource builds a Source; fw, when not nil, is its file watcher, set
// before the gauges are registered because their callback reads it.
func newSource(p *Policy, cfg config, fw *fileWatch) (*Source, error) {
	m, err := newInstruments(cfg.meterProvider)
	if err != nil {
		return nil, err
	}
	s := &Source{cfg: cfg, m: m, watch: fw}
	if fw != nil {
		fw.src = s
	}
	s.cur.Store(p)
	s.shadows = newShadowRunner(cfg, m)
	s.reg, err = m.registerState(s.state)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// state feeds the revision gauges.
func (s *Source) state() (revision, file string, rejected bool) {
	p := s.cur.Load()
	if s.watch != nil {
		rejected = s.watch.rejected.Load()
	}
	return p.Revision(), p.File(), rejected
}

// Policy returns the revision being served.
func (s *Source) Policy() *Policy { return s.cur.Load() }

// Select implements selection.Selector: the current revision's first
// applicable rule, its options, "rule/revision", and, when the rule has a
// shadow, an Observe function that evaluates it in the background.
func (s *Source) Select(ctx context.Context, q selection.Query) (selection.Selection, error) {
	p := s.cur.Load()
	bound, err := p.authorize(q.GroupID, q.Caller)
	if err != nil {
		return selection.Selection{}, err
	}
	// One view and one instant for the choice and the step it reports, so
	// that a switch between the two cannot tag the decision with a step
	// that did not admit the group.
	view, now := s.steps.Load(), time.Now()
	r, a, _, _, err := p.decide(q.GroupID, q.ProtocolName, q.Caller, false, view, now)
	if err != nil {
		return selection.Selection{}, err
	}
	s.m.selections.Add(ctx, 1, r.selected[keyOf(a)]...)
	sel := r.selection(a, q)
	sel.RolloutStep, sel.RolloutStarted = r.servedStep(p.revision, view, now)
	sel.Binding = bound
	if r.shadow != nil && s.shadows != nil {
		sel.Observe = s.shadows.observer(shadowJob{group: q.GroupID, rule: r, revision: p.revision, primary: a, protocol: q.ProtocolName})
	}
	return sel, nil
}

// Explain explains the current revision's choice; see Policy.Explain.
func (s *Source) Explain(groupID, protocolName string, caller selection.Caller) (selection.Explanation, error) {
	return s.cur.Load().explain(groupID, protocolName, caller, s.steps.Load())
}

// SetSteps makes the Source serve its staged rules from v, the state the
// replicas agreed (server/rollout). A view for another revision than the
// one serving is ignored, so a reload never serves a stale step.
func (s *Source) SetSteps(v *StepView) { s.steps.Store(v) }

// Steps returns the view set last, or nil.
func (s *Source) Steps() *StepView { return s.steps.Load() }

// ProtocolNames lists the names the current revision answers for; see
// [Policy.ProtocolNames].
func (s *Source) ProtocolNames() []string { return s.cur.Load().ProtocolNames() }

// ExplainPolicy implements [selection.Explainer] for the revision that is
// serving, so that an explanation always describes what Select does.
func (s *Source) ExplainPolicy(_ context.Context, q selection.Query) (selection.Explanation, error) {
	if q.GroupType == selection.GroupStreams {
		return s.cur.Load().explainTasks(q.GroupID, q.Caller, s.steps.Load())
	}
	return s.Explain(q.GroupID, q.ProtocolName, q.Caller)
}

// Close stops watching the file (for a Source made by Watch), waits for
// running shadow evaluations and unregisters the gauges. Selections keep
// working on the last revision, without shadows. It is safe to call more
// than once.
func (s *Source) Close() error {
	var err error
	s.closeOnce.Do(func() {
		if s.watch != nil {
			s.watch.stop()
		}
		if s.shadows != nil {
			s.shadows.close()
		}
		err = s.reg.Unregister()
	})
	return err
}
