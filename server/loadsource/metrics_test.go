package loadsource_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/assignd/assignd/server/loadsource"
)

// collect reads every metric of the reader, by name.
func collect(t *testing.T, r *sdkmetric.ManualReader) map[string]metricdata.Aggregation {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Aggregation{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m.Data
		}
	}
	return out
}

// The book's metrics: the age of each snapshot planned with, by cluster;
// the records ignored, by reason (every reason exported, zero or not);
// the sources sampling into it.
func TestBookMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	b, _ := sharedBook(loadsource.WithEpochInterval(iv))
	if err := b.Instrument(mp); err != nil {
		t.Fatal(err)
	}
	b.Apply(snap("eu", base, "a", map[string][]float64{"t": {1}}))
	if _, ok := collect(t, reader)["assignd.load.snapshot.record.lag"]; ok {
		t.Fatal("a record lag before any record with a timestamp")
	}
	// A record written by a replica whose clock is a minute ahead: late
	// for its epoch too.
	b.ApplyAt(snap("eu", base.Add(-iv), "a", map[string][]float64{"t": {1}}), time.Now().Add(time.Minute))
	if g, ok := collect(t, reader)["assignd.load.snapshot.record.lag"].(metricdata.Gauge[float64]); !ok || len(g.DataPoints) != 1 || g.DataPoints[0].Value > -59 || g.DataPoints[0].Value < -61 {
		t.Fatalf("assignd.load.snapshot.record.lag %#v, want about -60 s", g)
	}
	b.Apply(snap("eu", base, "b", map[string][]float64{"t": {2}})) // duplicate
	if _, _, err := b.Weights("eu", []string{"t"}, base.Add(iv+7*time.Second), time.Hour); err != nil {
		t.Fatal(err)
	}

	// A cluster's source counts while it runs.
	var p policy
	cs := loadsource.NewClusters(b, p.current, loadsource.WithConnector((&fakeConnector{opened: map[string]int{}, closed: map[string]int{}}).connect),
		loadsource.WithSourceOptions(loadsource.WithInterval(time.Hour)))
	_, _, _ = cs.Weights(p.declare("us", "u:1", false), []string{"t"}, time.Now())
	gauge := func() int64 {
		g, ok := collect(t, reader)["assignd.load.sources"].(metricdata.Sum[int64])
		if !ok || len(g.DataPoints) != 1 {
			t.Fatalf("assignd.load.sources: %#v", g)
		}
		return g.DataPoints[0].Value
	}
	for deadline := time.Now().Add(10 * time.Second); gauge() != 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("assignd.load.sources %d, want 1 while the source runs", gauge())
		}
	}
	cs.Close()
	if n := gauge(); n != 0 {
		t.Fatalf("assignd.load.sources %d after Close, want 0", n)
	}

	got := collect(t, reader)
	h, ok := got["assignd.load.snapshot.age"].(metricdata.Histogram[float64])
	if !ok || len(h.DataPoints) != 1 {
		t.Fatalf("assignd.load.snapshot.age: %#v", got["assignd.load.snapshot.age"])
	}
	dp := h.DataPoints[0]
	if cluster, _ := dp.Attributes.Value("cluster"); dp.Count != 1 || dp.Sum != (iv+7*time.Second).Seconds() || cluster != attribute.StringValue("eu") {
		t.Fatalf("age: %d calls, sum %v s, cluster %v; want one of %v for eu (7 s after the epoch ended)", dp.Count, dp.Sum, cluster, iv+7*time.Second)
	}
	ign, ok := got["assignd.load.snapshot.records.ignored"].(metricdata.Sum[int64])
	if !ok || len(ign.DataPoints) != 7 {
		t.Fatalf("assignd.load.snapshot.records.ignored: %#v, want a point per reason", got["assignd.load.snapshot.records.ignored"])
	}
	for _, dp := range ign.DataPoints {
		reason, _ := dp.Attributes.Value("reason")
		if want := map[string]int64{"duplicate": 1, "late": 1}[reason.AsString()]; dp.Value != want {
			t.Errorf("ignored{reason=%s} = %d, want %d", reason.AsString(), dp.Value, want)
		}
	}
}
