package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/syncbuf"
)

// fataler is what both *testing.T and *rapid.T provide.
type fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

func mustParse(t fataler, yaml string) *policy.Policy {
	t.Helper()
	p, err := policy.Parse("test.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return p
}

// meter is a ManualReader-backed provider for asserting metrics.
type meter struct {
	reader   *sdkmetric.ManualReader
	provider *sdkmetric.MeterProvider
}

func newMeter(t testing.TB) *meter {
	r := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	return &meter{reader: r, provider: mp}
}

func (m *meter) collect(t testing.TB) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := m.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return rm
}

// hasAll reports whether set carries every key=value of want.
func hasAll(set attribute.Set, want map[string]string) bool {
	for k, v := range want {
		got, ok := set.Value(attribute.Key(k))
		if !ok || got.String() != v {
			return false
		}
	}
	return true
}

// value sums the int64 sum or gauge points, or counts the histogram points,
// of metric name whose attributes include want. ok is false when no point
// matches.
func (m *meter) value(t testing.TB, name string, want map[string]string) (total int64, ok bool) {
	t.Helper()
	rm := m.collect(t)
	for _, sm := range rm.ScopeMetrics {
		for _, md := range sm.Metrics {
			if md.Name != name {
				continue
			}
			switch d := md.Data.(type) {
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					if hasAll(dp.Attributes, want) {
						total, ok = total+dp.Value, true
					}
				}
			case metricdata.Gauge[int64]:
				for _, dp := range d.DataPoints {
					if hasAll(dp.Attributes, want) {
						total, ok = total+dp.Value, true
					}
				}
			case metricdata.Histogram[int64]:
				for _, dp := range d.DataPoints {
					if hasAll(dp.Attributes, want) {
						total, ok = total+int64(dp.Count), true
					}
				}
			case metricdata.Histogram[float64]:
				for _, dp := range d.DataPoints {
					if hasAll(dp.Attributes, want) {
						total, ok = total+int64(dp.Count), true
					}
				}
			default:
				t.Fatalf("metric %s: unexpected data %T", name, md.Data)
			}
		}
	}
	return total, ok
}

// gaugeAttrs returns the attribute sets of an int64 gauge's points.
func (m *meter) gaugeAttrs(t testing.TB, name string) []attribute.Set {
	t.Helper()
	var out []attribute.Set
	for _, sm := range m.collect(t).ScopeMetrics {
		for _, md := range sm.Metrics {
			if g, ok := md.Data.(metricdata.Gauge[int64]); ok && md.Name == name {
				for _, dp := range g.DataPoints {
					out = append(out, dp.Attributes)
				}
			}
		}
	}
	return out
}

// logBuffer is a concurrency-safe log sink.
type logBuffer struct{ syncbuf.Buffer }

// lines returns the log lines containing every one of subs.
func (l *logBuffer) lines(subs ...string) []string {
	var out []string
	for _, line := range strings.Split(l.String(), "\n") {
		all := line != ""
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			out = append(out, line)
		}
	}
	return out
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// replaceFile writes data next to path and renames it over path, as
// editors and configuration managers do.
func replaceFile(t testing.TB, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// groupsInBuckets returns n group ids whose (unsalted) bucket satisfies in,
// found by scanning "g-0", "g-1", ...
func groupsInBuckets(t testing.TB, n int, in func(bucket int) bool) []string {
	t.Helper()
	var out []string
	for i := 0; len(out) < n; i++ {
		if i > 1_000_000 {
			t.Fatal("no such groups")
		}
		id := "g-" + strconv.Itoa(i)
		if in(policy.Bucket("", id)) {
			out = append(out, id)
		}
	}
	return out
}

// runSelected plans g with the assignor and options sel chose; the engine
// refusing fails the test.
func runSelected(t testing.TB, sel selection.Selection, g *assign.Group) *assign.Result {
	t.Helper()
	r, err := assign.Run(sel.Assignor, g, sel.Options...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
