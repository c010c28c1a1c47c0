package server

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"google.golang.org/grpc/codes"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

// meterName scopes the domain instruments.
const meterName = "github.com/assignd/assignd/server"

// domainMetrics are the per-assignor, per-protocol instruments of Assign.
// RPC-level latency and sizes come from the otelgrpc stats handler; these
// say what the assignments did. Attributes: assignor ("name@version"),
// protocol (EAGER or COOPERATIVE), policy ("rule/revision", as responses
// report it) and its two parts, rule and revision, so that a rollout can
// be followed per rule across revisions and joined with the policy's own
// assignd.policy.* metrics; errors also carry code and reason. None of
// them comes verbatim from a request, so their cardinality is bounded by
// the server's assignors and the policy revisions it has served.
//
// They are recorded on every call, so they are built to cost little
// there: each label combination's attribute set is built once, the
// counters are atomic adds into that combination's series (the SDK reads
// them at collection time through an observable callback), and the
// in-flight and admitted-memory gauges read the admission's occupancy
// instead of being updated twice per call. Only the three histograms are
// recorded through the SDK on the request path.
type domainMetrics struct {
	duration   metric.Float64Histogram
	members    metric.Int64Histogram
	partitions metric.Int64Histogram
	moved      metric.Int64ObservableCounter
	revoked    metric.Int64ObservableCounter
	pending    metric.Int64ObservableCounter
	followups  metric.Int64ObservableCounter
	errors     metric.Int64Counter
	inflight   metric.Int64ObservableUpDownCounter
	admitted   metric.Int64ObservableUpDownCounter

	series sync.Map // labelKey → *series

	// movedBy counts partitions by assign.MoveReason (reason attribute).
	movedBy metric.Int64ObservableCounter
}

// labelKey identifies a series without building strings on the request
// path: the assignor by name and version.
type labelKey struct {
	assignor         assignorKey
	protocol, policy string
}

// series is one label combination: its attributes and its counters.
type series struct {
	attrs attribute.Set
	opt   metric.MeasurementOption
	// record is opt as the variadic argument of Record, built once: a
	// fresh one per call would escape to the heap.
	record               []metric.RecordOption
	moved, revoked       atomic.Int64
	pending, followups   atomic.Int64
	assignor, protoLabel string
	// served: a call of this series succeeded; until then its counters
	// are not exported (a series of failures only has an error count).
	served atomic.Bool

	// movedBy counts partitions by assign.MoveReason; reasonOpts[r] is
	// opt with reason=r added, built once.
	movedBy    [assign.NumReasons]atomic.Int64
	reasonOpts [assign.NumReasons]metric.ObserveOption

	// errorOpts holds, by errorKey, opt with the error's code and reason
	// added, each built at its first error: a storm refuses thousands of
	// calls a second, and a new attribute set for each was half the cost
	// of a refusal.
	errorOpts sync.Map
}

// errorKey is an error's labels.
type errorKey struct {
	code   codes.Code
	reason assigndv1.ErrorReason
}

// errorOpt is s's option for errors of code and reason.
func (s *series) errorOpt(code codes.Code, reason assigndv1.ErrorReason) metric.AddOption {
	k := errorKey{code, reason}
	if o, ok := s.errorOpts.Load(k); ok {
		return o.(metric.AddOption)
	}
	o, _ := s.errorOpts.LoadOrStore(k, metric.WithAttributeSet(attribute.NewSet(append(s.attrs.ToSlice(),
		attribute.String("code", code.String()),
		attribute.String("reason", reason.String()),
	)...)))
	return o.(metric.AddOption)
}

func (d *domainMetrics) seriesFor(a assign.Assignor, protocol, policy string) *series {
	k := labelKey{protocol: protocol, policy: policy}
	if a != nil {
		k.assignor = assignorKey{a.Name(), a.Version()}
	}
	if s, ok := d.series.Load(k); ok {
		return s.(*series)
	}
	s := &series{assignor: "none", protoLabel: protocol}
	if a != nil {
		s.assignor = ref(a)
	}
	if s.protoLabel == "" {
		s.protoLabel = "UNSPECIFIED"
	}
	rule, revision := splitPolicy(policy)
	s.attrs = attribute.NewSet(
		attribute.String("assignor", s.assignor),
		attribute.String("protocol", s.protoLabel),
		attribute.String("policy", policy),
		attribute.String("rule", rule),
		attribute.String("revision", revision),
	)
	s.opt = metric.WithAttributeSet(s.attrs)
	for r := range s.reasonOpts {
		s.reasonOpts[r] = metric.WithAttributeSet(attribute.NewSet(append(s.attrs.ToSlice(),
			attribute.String("reason", assign.MoveReason(r).String()))...))
	}
	s.record = []metric.RecordOption{s.opt}
	actual, _ := d.series.LoadOrStore(k, s)
	return actual.(*series)
}

// splitPolicy splits "rule/revision" (selection.Selection.Policy) at its first
// slash; rule names cannot contain one.
func splitPolicy(policy string) (rule, revision string) {
	rule, revision, _ = strings.Cut(policy, "/")
	return rule, revision
}

// instrument is one instrument newDomainMetrics creates: where it goes,
// its name, unit and description.
type instrument[I any] struct {
	dst              *I
	name, unit, desc string
}

// create creates instruments of one kind with mk, adding each error.
func create[I any](add func(error), mk func(name string, unit, desc metric.InstrumentOption) (I, error), list ...instrument[I]) {
	for _, in := range list {
		var err error
		*in.dst, err = mk(in.name, metric.WithUnit(in.unit), metric.WithDescription(in.desc))
		add(err)
	}
}

// newDomainMetrics creates the instruments; inflight reports how many
// Assign calls hold a concurrency slot, admitted the sum of their memory
// estimates.
func newDomainMetrics(mp metric.MeterProvider, inflight, admitted func() int64) (*domainMetrics, error) {
	m := mp.Meter(meterName)
	var d domainMetrics
	var errs []error
	add := func(err error) { errs = append(errs, err) }
	var err error
	d.duration, err = m.Float64Histogram("assignd.assign.duration", metric.WithUnit("s"),
		metric.WithDescription("Time to serve an Assign call: decode, assign, encode."),
		metric.WithExplicitBucketBoundaries(0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
	add(err)
	sizes := metric.WithExplicitBucketBoundaries(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6)
	create(add, func(name string, unit, desc metric.InstrumentOption) (metric.Int64Histogram, error) {
		return m.Int64Histogram(name, unit, desc, sizes)
	},
		instrument[metric.Int64Histogram]{&d.members, "assignd.assign.members", "{member}", "Members per assigned group."},
		instrument[metric.Int64Histogram]{&d.partitions, "assignd.assign.partitions", "{partition}", "Partitions assigned per call."},
	)
	create(add, func(name string, unit, desc metric.InstrumentOption) (metric.Int64ObservableCounter, error) {
		return m.Int64ObservableCounter(name, unit, desc)
	},
		instrument[metric.Int64ObservableCounter]{&d.moved, "assignd.assign.moved", "{partition}", "Partitions whose owner changed (planned moves)."},
		instrument[metric.Int64ObservableCounter]{&d.movedBy, "assignd.assign.moved_partitions", "{partition}",
			"Partitions that changed owner (from nobody too), were withheld or were held back, by reason."},
		instrument[metric.Int64ObservableCounter]{&d.revoked, "assignd.assign.revoked", "{partition}", "Partitions members were told to revoke."},
		instrument[metric.Int64ObservableCounter]{&d.pending, "assignd.assign.pending", "{partition}", "Partitions withheld until their owner revokes them (KIP-429)."},
		instrument[metric.Int64ObservableCounter]{&d.followups, "assignd.assign.followups", "{call}", "Assignments that require a follow-up rebalance."},
	)
	d.errors, err = m.Int64Counter("assignd.assign.errors", metric.WithUnit("{call}"),
		metric.WithDescription("Failed Assign calls by gRPC code and ErrorReason."))
	add(err)
	create(add, func(name string, unit, desc metric.InstrumentOption) (metric.Int64ObservableUpDownCounter, error) {
		return m.Int64ObservableUpDownCounter(name, unit, desc)
	},
		instrument[metric.Int64ObservableUpDownCounter]{&d.inflight, "assignd.assign.inflight", "{call}", "Assign calls holding a concurrency slot."},
		instrument[metric.Int64ObservableUpDownCounter]{&d.admitted, "assignd.assign.memory.admitted", "By",
			"Estimated memory of the Assign calls computing, against the memory budget."},
	)
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("server: creating metrics: %w", err)
	}
	// The server lives as long as its process; the callback is never
	// unregistered, so that a last scrape after Shutdown still has it.
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(d.inflight, inflight())
		o.ObserveInt64(d.admitted, admitted())
		d.series.Range(func(_, v any) bool {
			s := v.(*series)
			if !s.served.Load() {
				return true
			}
			o.ObserveInt64(d.moved, s.moved.Load(), s.opt)
			for r := range s.movedBy {
				if n := s.movedBy[r].Load(); n > 0 {
					o.ObserveInt64(d.movedBy, n, s.reasonOpts[r])
				}
			}
			o.ObserveInt64(d.revoked, s.revoked.Load(), s.opt)
			o.ObserveInt64(d.pending, s.pending.Load(), s.opt)
			o.ObserveInt64(d.followups, s.followups.Load(), s.opt)
			return true
		})
		return nil
	}, d.inflight, d.admitted, d.moved, d.movedBy, d.revoked, d.pending, d.followups)
	if err != nil {
		return nil, fmt.Errorf("server: registering metrics: %w", err)
	}
	return &d, nil
}

// record adds one finished Assign call.
// refused counts a call refused at its headers as OVERLOADED, as record
// would count it (assignor "none": the policy has not chosen one yet).
func (d *domainMetrics) refused(ctx context.Context) {
	d.errors.Add(ctx, 1, d.seriesFor(nil, "", "").errorOpt(codes.ResourceExhausted, assigndv1.ErrorReason_ERROR_REASON_OVERLOADED))
}

func (d *domainMetrics) record(ctx context.Context, r *callReport, code codes.Code, err error, took time.Duration) {
	s := d.seriesFor(r.assignor, r.protocol, r.policy)
	if code != codes.OK {
		d.errors.Add(ctx, 1, s.errorOpt(code, rpcerr.ReasonOf(err)))
	}
	if !r.ok {
		return
	}
	d.duration.Record(ctx, took.Seconds(), s.record...)
	d.members.Record(ctx, int64(r.members), s.record...)
	d.partitions.Record(ctx, int64(r.partitions), s.record...)
	s.moved.Add(int64(r.moved))
	for reason, n := range r.reasons {
		if n > 0 {
			s.movedBy[reason].Add(int64(n))
		}
	}
	s.revoked.Add(int64(r.revoked))
	s.pending.Add(int64(r.pending))
	if r.followup {
		s.followups.Add(1)
	}
	s.served.Store(true)
}
