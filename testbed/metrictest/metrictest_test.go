package metrictest_test

import (
	"context"
	"maps"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/assignd/assignd/testbed/metrictest"
)

// Points are summed by the attribute asked for, or all together; other
// instruments do not count.
func TestSums(t *testing.T) {
	r := sdkmetric.NewManualReader()
	m := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r)).Meter("t")
	c, _ := m.Int64Counter("c")
	other, _ := m.Int64Counter("other")
	ctx := context.Background()
	c.Add(ctx, 2, metric.WithAttributes(attribute.String("reason", "a")))
	c.Add(ctx, 3, metric.WithAttributes(attribute.String("reason", "b")))
	c.Add(ctx, 5)
	other.Add(ctx, 7)
	if got, want := metrictest.Sums(t, r, "c", "reason"), map[string]int64{"a": 2, "b": 3, "": 5}; !maps.Equal(got, want) {
		t.Errorf("Sums by reason = %v, want %v", got, want)
	}
	if got := metrictest.Sum(t, r, "c"); got != 10 {
		t.Errorf("Sum = %d, want 10", got)
	}
	if got := metrictest.Sums(t, r, "never", "reason"); len(got) != 0 {
		t.Errorf("an unknown counter sums to %v", got)
	}
}
