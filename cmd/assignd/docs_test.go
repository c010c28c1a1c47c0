package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/assignd/assignd/testbed/doctable"
)

// The scrapes of a live assignd and of the shims' applications, taken once
// for the tests that read them.
var scraped struct {
	sync.Mutex
	done           bool
	served, client scrape
}

func scrapes(t *testing.T) (served, client scrape) {
	t.Helper()
	scraped.Lock()
	defer scraped.Unlock()
	if !scraped.done {
		scraped.served, scraped.client = scrapeAssignd(t), scrapeShimApp(t)
		scraped.done = !t.Failed()
	}
	return scraped.served, scraped.client
}

// metricsPage holds the metric reference: the tables under its "Metrics".
var metricsPage = filepath.Join("..", "..", "docs", "operations.md")

// TestDocsMetricTables checks the metric tables of docs/operations.md
// against the code, both ways: every assignd_* metric that a live assignd
// (driven as for [TestOpsPackMetricsExist]) or a shim's application serves
// is documented, and every documented metric is served, or, for those the
// scrape cannot drive (a halted rollout, a history topic), is an
// instrument the module's code declares (its OpenTelemetry name, dots for
// underscores, before the exporter's unit and _total suffixes).
func TestDocsMetricTables(t *testing.T) {
	rows, err := doctable.Table(metricsPage, "Metrics")
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, row := range rows {
		for _, c := range doctable.Code(row[0]) {
			name, _, _ := strings.Cut(c, "{")
			if documented[name] {
				t.Errorf("%s documents %s twice", metricsPage, name)
			}
			documented[name] = true
		}
	}
	served, client := scrapes(t)
	families := map[string]bool{}
	for _, s := range []scrape{served, client} {
		for n := range s.names {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if base, ok := strings.CutSuffix(n, suffix); ok && s.names[base+"_bucket"] {
					n = base
				}
			}
			families[n] = true
		}
	}
	for n := range families {
		if strings.HasPrefix(n, "assignd_") && !documented[n] {
			t.Errorf("assignd serves %s, which %s does not document", n, metricsPage)
		}
	}
	declared := declaredInstruments(t)
	for n := range documented {
		if families[n] || declared[n] {
			continue
		}
		t.Errorf("%s documents %s, which neither the scrape serves nor the code declares", metricsPage, n)
	}
}

// instrumentRE finds the string literals that can name an instrument.
var instrumentRE = regexp.MustCompile(`"(assignd[._][a-z0-9_.]+)"`)

// declaredInstruments returns the Prometheus names that the instrument
// names in the module's non-test Go files can take: dots as underscores,
// with or without a unit suffix and _total.
func declaredInstruments(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testbed") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range instrumentRE.FindAllStringSubmatch(string(data), -1) {
			base := strings.ReplaceAll(m[1], ".", "_")
			for _, unit := range []string{"", "_seconds", "_bytes"} {
				for _, total := range []string{"", "_total"} {
					out[base+unit+total] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !out["assignd_policy_rollout_halts_total"] || !out["assignd_history_records_dropped_total"] {
		t.Fatalf("the instruments were not found in the sources: %d names", len(out))
	}
	return out
}
