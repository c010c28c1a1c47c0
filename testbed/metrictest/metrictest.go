// Package metrictest reads the counters an OpenTelemetry meter provider
// recorded, through its manual reader, for the tests that check them.
package metrictest

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// Sums collects r and returns the int64 counter name's points summed by
// the value of the attribute by (all under "" when by is "" or a point
// lacks it). A counter never added to is an empty map.
func Sums(t testing.TB, r *sdkmetric.ManualReader, name, by string) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			s, ok := m.Data.(metricdata.Sum[int64])
			if !ok || m.Name != name {
				continue
			}
			for _, dp := range s.DataPoints {
				v, _ := dp.Attributes.Value(attribute.Key(by))
				out[v.AsString()] += dp.Value
			}
		}
	}
	return out
}

// Sum is the total of the int64 counter name's points.
func Sum(t testing.TB, r *sdkmetric.ManualReader, name string) int64 {
	t.Helper()
	var n int64
	for _, v := range Sums(t, r, name, "") {
		n += v
	}
	return n
}
