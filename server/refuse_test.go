package server

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/tap"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
)

// BenchmarkRefuseEarly is one refusal at a call's headers, as a storm at
// several times the capacity makes most calls end: the cost the server
// pays for each call it does not serve, before gRPC writes the status.
func BenchmarkRefuseEarly(b *testing.B) {
	metrics, err := newDomainMetrics(metric.NewMeterProvider(), func() int64 { return 0 }, func() int64 { return 0 })
	if err != nil {
		b.Fatal(err)
	}
	a := newAdmission(2, 1<<30, 0, 200*time.Millisecond)
	a.used, a.intake, a.held[0] = 2, 1000, time.Millisecond
	refuse := refuseEarly(a, metrics)
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	info := &tap.Info{FullMethodName: assigndv1.AssignmentService_Assign_FullMethodName}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := refuse(ctx, info); err == nil {
			b.Fatal("let in")
		}
	}
}

// TestRefusedCountsAsRecord: a call refused at its headers is counted in
// assignd.assign.errors on the same series, code and reason as a refusal
// the handler's path records.
func TestRefusedCountsAsRecord(t *testing.T) {
	reader := metric.NewManualReader()
	metrics, err := newDomainMetrics(metric.NewMeterProvider(metric.WithReader(reader)), func() int64 { return 0 }, func() int64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	metrics.refused(ctx)
	metrics.record(ctx, &callReport{}, codes.ResourceExhausted, rpcerr.ToStatus(rpcerr.Overloaded(time.Second)), 0)
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "assignd.assign.errors" {
				continue
			}
			sum := m.Data.(metricdata.Sum[int64])
			if len(sum.DataPoints) != 1 || sum.DataPoints[0].Value != 2 {
				t.Fatalf("errors counted as %+v, want one series of 2", sum.DataPoints)
			}
			if r, _ := sum.DataPoints[0].Attributes.Value("reason"); r.AsString() != "ERROR_REASON_OVERLOADED" {
				t.Errorf("reason %q, want ERROR_REASON_OVERLOADED", r.AsString())
			}
			return
		}
	}
	t.Fatal("no assignd.assign.errors")
}
