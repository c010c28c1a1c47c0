package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"google.golang.org/grpc/codes"
)

// meterName scopes the domain instruments.
const meterName = "github.com/assignd/assignd/server"

// domainMetrics are the per-assignor, per-protocol instruments of Assign.
// RPC-level latency and sizes come from the otelgrpc stats handler; these
// say what the assignments did. Attributes: assignor ("name@version"),
// protocol (EAGER or COOPERATIVE) and policy ("rule/revision"); errors also
// carry code and reason. None of them comes verbatim from a request, so
// their cardinality is bounded by the server's assignors and policy.
type domainMetrics struct {
	duration   metric.Float64Histogram
	members    metric.Int64Histogram
	partitions metric.Int64Histogram
	moved      metric.Int64Counter
	revoked    metric.Int64Counter
	pending    metric.Int64Counter
	followups  metric.Int64Counter
	errors     metric.Int64Counter
	inflight   metric.Int64UpDownCounter

	// labels caches the attribute option of each (assignor, protocol,
	// policy): building and sorting an attribute set on every call costs
	// more than all the measurements together.
	labels sync.Map // labelKey → metric.MeasurementOption
}

type labelKey struct{ assignor, protocol, policy string }

func (d *domainMetrics) labelsFor(k labelKey) metric.MeasurementOption {
	if o, ok := d.labels.Load(k); ok {
		return o.(metric.MeasurementOption)
	}
	o := metric.WithAttributeSet(attribute.NewSet(
		attribute.String("assignor", k.assignor),
		attribute.String("protocol", k.protocol),
		attribute.String("policy", k.policy),
	))
	d.labels.Store(k, o)
	return o
}

func newDomainMetrics(mp metric.MeterProvider) (*domainMetrics, error) {
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
	d.members, err = m.Int64Histogram("assignd.assign.members", metric.WithUnit("{member}"),
		metric.WithDescription("Members per assigned group."), sizes)
	add(err)
	d.partitions, err = m.Int64Histogram("assignd.assign.partitions", metric.WithUnit("{partition}"),
		metric.WithDescription("Partitions assigned per call."), sizes)
	add(err)
	d.moved, err = m.Int64Counter("assignd.assign.moved", metric.WithUnit("{partition}"),
		metric.WithDescription("Partitions whose owner changed (planned moves)."))
	add(err)
	d.revoked, err = m.Int64Counter("assignd.assign.revoked", metric.WithUnit("{partition}"),
		metric.WithDescription("Partitions members were told to revoke."))
	add(err)
	d.pending, err = m.Int64Counter("assignd.assign.pending", metric.WithUnit("{partition}"),
		metric.WithDescription("Partitions withheld until their owner revokes them (KIP-429)."))
	add(err)
	d.followups, err = m.Int64Counter("assignd.assign.followups", metric.WithUnit("{call}"),
		metric.WithDescription("Assignments that require a follow-up rebalance."))
	add(err)
	d.errors, err = m.Int64Counter("assignd.assign.errors", metric.WithUnit("{call}"),
		metric.WithDescription("Failed Assign calls by gRPC code and ErrorReason."))
	add(err)
	d.inflight, err = m.Int64UpDownCounter("assignd.assign.inflight", metric.WithUnit("{call}"),
		metric.WithDescription("Assign calls holding a concurrency slot."))
	add(err)
	for _, e := range errs {
		if e != nil {
			return nil, fmt.Errorf("server: creating metrics: %w", e)
		}
	}
	return &d, nil
}

// record adds one finished Assign call.
func (d *domainMetrics) record(ctx context.Context, r *callReport, code codes.Code, err error, took time.Duration) {
	assignor := r.assignor
	if assignor == "" {
		assignor = "none"
	}
	protocol := r.protocol
	if protocol == "" {
		protocol = "UNSPECIFIED"
	}
	opt := d.labelsFor(labelKey{assignor, protocol, r.policy})
	if code != codes.OK {
		d.errors.Add(ctx, 1, metric.WithAttributeSet(attribute.NewSet(
			attribute.String("assignor", assignor),
			attribute.String("protocol", protocol),
			attribute.String("policy", r.policy),
			attribute.String("code", code.String()),
			attribute.String("reason", reasonOf(err).String()),
		)))
	}
	if !r.ok {
		return
	}
	d.duration.Record(ctx, took.Seconds(), opt)
	d.members.Record(ctx, int64(r.members), opt)
	d.partitions.Record(ctx, int64(r.partitions), opt)
	d.moved.Add(ctx, int64(r.moved), opt)
	d.revoked.Add(ctx, int64(r.revoked), opt)
	d.pending.Add(ctx, int64(r.pending), opt)
	if r.followup {
		d.followups.Add(ctx, 1, opt)
	}
}
