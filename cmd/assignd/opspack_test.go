package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.yaml.in/yaml/v3"

	"github.com/assignd/assignd/client/kgoassign"
	"github.com/assignd/assignd/client/saramaassign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/testbed/promnames"
	"github.com/assignd/assignd/testbed/shimtest"
)

// inProcess is an assignd served by [run] in this test process.
type inProcess struct {
	grpcAddr, metricsAddr string
	lines                 chan map[string]any // the log records after the serving line
}

// runInProcess starts assignd's main in a goroutine on loopback ports the
// kernel picks, and stops it (as SIGTERM would) when the test ends.
func runInProcess(t *testing.T, args ...string) *inProcess {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	exited := make(chan int, 1)
	go func() {
		code := run(ctx, loopbackArgs(args...),
			func(string) (string, bool) { return "", false }, io.Discard, pw)
		pw.Close()
		exited <- code
	}()
	p := &inProcess{lines: make(chan map[string]any, 1024)}
	serving := make(chan map[string]any, 1)
	go readLog(pr, serving, p.lines)
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-exited:
			if code != 0 {
				t.Errorf("assignd exited with status %d", code)
			}
		case <-time.After(20 * time.Second):
			t.Error("assignd did not stop")
		}
	})
	select {
	case rec := <-serving:
		p.grpcAddr, p.metricsAddr = servingAddrs(rec)
	case code := <-exited:
		t.Fatalf("assignd exited with status %d before serving", code)
	case <-time.After(30 * time.Second):
		t.Fatal("assignd did not log its serving line")
	}
	return p
}

// The operations pack: deploy/grafana/assignd.json and
// deploy/prometheus/assignd-rules.yaml.
var (
	dashboardFile = filepath.Join("..", "..", "deploy", "grafana", "assignd.json")
	rulesFile     = filepath.Join("..", "..", "deploy", "prometheus", "assignd-rules.yaml")
	runbookFile   = filepath.Join("..", "..", "docs", "runbook.md")
)

const shadowPolicy = `version: 1
rules:
  - name: shadowed
    match: {groups: [orders], protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    shadow: {assignor: cooperative-sticky@2}
  - name: staged
    match: {groups: [payments], protocols: [cooperative-sticky]}
    assignor: cooperative-sticky@1
    rollout:
      steps: [{percent: 10, hold: 1h}, {percent: 100}]
  - name: loaded
    match: {groups: [loaded], protocols: [cooperative-sticky]}
    assignor: load-sticky@1
    params: {load_source: kafka}
`

// TestOpsPackMetricsExist reads every PromQL expression of the dashboard
// and the alert rules, and checks that each metric name it reads is served:
// by a live assignd that served Assign calls (one refused, one rejected
// before the handler), compared a shadow, drove a staged rollout (its
// gauges) and reloaded its policy (once rejected), or by applications
// whose kgoassign and saramaassign leaders fell back. Label values the expressions match on exist too: in the
// scrapes, or as an ErrorReason or GroupSignal name.
func TestOpsPackMetricsExist(t *testing.T) {
	served, client := scrapes(t)
	exists := map[string]bool{}
	for n := range served.names {
		exists[n] = true
	}
	for n := range client.names {
		exists[n] = true
	}
	for _, want := range []string{"assignd_assign_errors_total", "assignd_rpc_refused_total", "assignd_policy_reloads_total",
		"assignd_policy_reload_failures_total", "assignd_policy_shadow_runs_total", "assignd_history_groups_silent", "assignd_assign_queued",
		"assignd_policy_rollout_halted", "assignd_load_fallbacks_total", "assignd_load_snapshot_age_seconds_bucket", "assignd_load_sources"} {
		if !served.names[want] {
			t.Errorf("the scrape of assignd lacks %s: the test did not drive what it should", want)
		}
	}

	exprs := dashboardExprs(t)
	rules := ruleExprs(t)
	if len(exprs) < 20 || len(rules) < 5 {
		t.Fatalf("%d dashboard and %d rule expressions: the files were not read", len(exprs), len(rules))
	}
	for where, expr := range mergeMaps(exprs, rules) {
		names, err := promnames.Names(expr)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		if len(names) == 0 {
			t.Errorf("%s reads no metric: %s", where, expr)
		}
		for _, n := range names {
			if !exists[n] {
				t.Errorf("%s reads %s, which neither assignd nor a shim serves", where, n)
			}
		}
		for _, m := range matcherRE.FindAllStringSubmatch(expr, -1) {
			label, values := m[1], m[3]
			if strings.Contains(values, "$") || label == "job" || label == "instance" {
				continue
			}
			for _, v := range strings.Split(values, "|") {
				if !served.labels[label+"="+v] && !client.labels[label+"="+v] && !enumValue(label, v) {
					t.Errorf("%s matches %s=%q, a value no series carries", where, label, v)
				}
			}
		}
	}
}

// matcherRE finds the equality and regular-expression matchers whose
// values are literals or alternations of literals.
var matcherRE = regexp.MustCompile(`([a-zA-Z_]\w*)\s*(=~|=)\s*"([\w.:/|-]+|[^"]*\$[^"]*)"`)

// enumValue: reason and signal values are the API's enum names; one
// scrape cannot show every value.
func enumValue(label, v string) bool {
	switch label {
	case "reason":
		_, ok := assigndv1.ErrorReason_value[v]
		return ok
	case "signal":
		_, ok := assigndv1.GroupSignal_value[v]
		return ok
	}
	return false
}

func mergeMaps(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// scrape is what one /metrics served: the sample names, and
// "label=value" for every label of every sample.
type scrape struct {
	names, labels map[string]bool
}

var labelRE = regexp.MustCompile(`([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"`)

func parseScrape(t *testing.T, text string) scrape {
	t.Helper()
	s := scrape{names: map[string]bool{}, labels: map[string]bool{}}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		end := strings.IndexAny(line, "{ ")
		if end <= 0 {
			t.Fatalf("not an exposition line: %q", line)
		}
		s.names[line[:end]] = true
		if line[end] == '{' {
			for _, m := range labelRE.FindAllStringSubmatch(line[end:strings.LastIndexByte(line, '}')], -1) {
				s.labels[m[1]+"="+m[2]] = true
			}
		}
	}
	return s
}

// scrapeAssignd runs assignd in this process, drives the calls whose
// metrics the pack reads, and scrapes /metrics.
func scrapeAssignd(t *testing.T) scrape {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	writeFile(t, path, shadowPolicy)
	// Load from Kafka (kfake), for the rule "loaded": its first calls are
	// planned by counts, then with the sampled rates.
	load, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(6, "orders"), kfake.SeedTopics(3, "payments"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(load.Close)
	p := runInProcess(t, "--policy", path, "--max-recv-bytes", "65536", "--load-brokers", load.ListenAddrs()[0], "--load-interval", "100ms")
	c := dialProcess(t, &process{grpcAddr: p.grpcAddr})
	metrics := func() string { return httpGet(t, "http://"+p.metricsAddr+"/metrics") }

	loaded := exampleRequest(t, "cooperative-metadata.json")
	loaded.GroupId = "loaded"
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		resp, err := c.Assign(testCtx(t), loaded)
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetWeightSource() == assigndv1.WeightSource_WEIGHT_SOURCE_KAFKA {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no call planned with load from Kafka: %v", resp.GetWarnings())
		}
	}

	req := exampleRequest(t, "cooperative-metadata.json")
	req.GroupId = "orders"
	if _, err := c.Assign(testCtx(t), req); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Assign(testCtx(t), exampleRequest(t, "invalid/truncated-metadata.json")); err == nil {
		t.Error("Assign of examples/invalid/truncated-metadata.json succeeded")
	}
	big := exampleRequest(t, "cooperative-metadata.json")
	big.GroupId = strings.Repeat("g", 70000)
	if _, err := c.Assign(testCtx(t), big); err == nil {
		t.Error("Assign over --max-recv-bytes succeeded")
	}

	// A reload, then a rejected edit.
	writeFile(t, path, shadowPolicy+"# edited\n")
	waitRevision(t, c, revisionOf(t, path))
	writeFile(t, path, "version: 1\nrules:\n  - name: shadowed\n    assignor: cooperative-sticky@9\n")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		m := metrics()
		if strings.Contains(m, "\nassignd_policy_reload_rejected 1\n") && strings.Contains(m, "\nassignd_policy_shadow_runs_total{") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no rejected reload or shadow run on /metrics:\n%s", m)
		}
	}
	return parseScrape(t, metrics())
}

// scrapeShimApp is what applications whose Go shim leaders cannot reach
// assignd serve: a kgoassign leader and a saramaassign leader each fall
// back once, and export their metrics with the OpenTelemetry Prometheus
// exporter's defaults. It returns the union of the two scrapes, after
// checking that each has the fallback counter.
func scrapeShimApp(t *testing.T) scrape {
	t.Helper()
	app := func(lead func(mp metric.MeterProvider)) scrape {
		reg := prometheus.NewRegistry()
		exp, err := otelprom.New(otelprom.WithRegisterer(reg))
		if err != nil {
			t.Fatal(err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(exp))
		t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
		lead(mp)
		rec := httptest.NewRecorder()
		promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		s := parseScrape(t, rec.Body.String())
		if !s.names["assignd_client_fallbacks_total"] || !s.labels["reason=Unavailable"] {
			t.Errorf("an application's scrape lacks assignd_client_fallbacks_total{reason=\"Unavailable\"}:\n%s", rec.Body.String())
		}
		return s
	}
	franz := app(func(mp metric.MeterProvider) {
		b := kgoassign.CooperativeSticky(shimtest.NewClient(t, shimtest.ClosedAddr(t)),
			kgoassign.WithMeterProvider(mp), kgoassign.WithLogger(shimtest.Quiet))
		var members []kmsg.JoinGroupResponseMember
		for _, id := range []string{"m1", "m2"} {
			meta := kmsg.ConsumerMemberMetadata{Version: 0, Topics: []string{"orders"}}
			members = append(members, kmsg.JoinGroupResponseMember{MemberID: id, ProtocolMetadata: meta.AppendTo(nil)})
		}
		mb, _, err := b.MemberBalancer(members)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := mb.(kgo.GroupMemberBalancerOrError).BalanceOrError(map[string]int32{"orders": 4}); err != nil {
			t.Fatal(err)
		}
		if st := b.Stats(); st.Fallbacks != 1 {
			t.Fatalf("kgoassign stats %+v, want one fallback", st)
		}
	})
	sar := app(func(mp metric.MeterProvider) {
		s := saramaassign.Range(shimtest.NewClient(t, shimtest.ClosedAddr(t)),
			saramaassign.WithMeterProvider(mp), saramaassign.WithLogger(shimtest.Quiet))
		members := map[string]sarama.ConsumerGroupMemberMetadata{"m1": {Topics: []string{"orders"}}, "m2": {Topics: []string{"orders"}}}
		if _, err := s.Plan(members, map[string][]int32{"orders": {0, 1, 2, 3}}); err != nil {
			t.Fatal(err)
		}
		if st := s.Stats(); st.Fallbacks != 1 {
			t.Fatalf("saramaassign stats %+v, want one fallback", st)
		}
	})
	for k := range sar.names {
		franz.names[k] = true
	}
	for k := range sar.labels {
		franz.labels[k] = true
	}
	return franz
}

// dashboard is the part of a Grafana dashboard the test reads.
type dashboard struct {
	Panels []struct {
		ID         int    `json:"id"`
		Type       string `json:"type"`
		Title      string `json:"title"`
		Datasource *struct {
			UID string `json:"uid"`
		} `json:"datasource"`
		GridPos *struct{ H, W, X, Y int } `json:"gridPos"`
		Targets []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
	Templating struct {
		List []struct {
			Name       string `json:"name"`
			Definition string `json:"definition"`
		} `json:"list"`
	} `json:"templating"`
	Annotations struct {
		List []struct {
			Name string `json:"name"`
			Expr string `json:"expr"`
		} `json:"list"`
	} `json:"annotations"`
}

// labelValuesRE is Grafana's label_values(SELECTOR, LABEL) variable query.
var labelValuesRE = regexp.MustCompile(`^label_values\((.+),\s*[a-zA-Z_]\w*\)$`)

// dashboardExprs reads the dashboard and returns its expressions by where
// they are, after checking its structure: unique panel ids, a position and
// the dashboard's data source variable on every panel.
func dashboardExprs(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	exprs := map[string]string{}
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] || p.GridPos == nil || p.Title == "" {
			t.Errorf("panel %d %q: duplicate id, no title or no gridPos", p.ID, p.Title)
		}
		ids[p.ID] = true
		if p.Type == "row" {
			continue
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" || len(p.Targets) == 0 {
			t.Errorf("panel %q: no targets, or not on the ${datasource} variable", p.Title)
		}
		for _, tg := range p.Targets {
			exprs["dashboard panel "+p.Title+" "+tg.RefID] = tg.Expr
		}
	}
	for _, v := range d.Templating.List {
		if m := labelValuesRE.FindStringSubmatch(v.Definition); m != nil {
			exprs["dashboard variable "+v.Name] = m[1]
		}
	}
	for _, a := range d.Annotations.List {
		exprs["dashboard annotation "+a.Name] = a.Expr
	}
	return exprs
}

// ruleExprs reads the alert rules and returns their expressions by alert,
// after checking that each has a severity and a runbook section.
func ruleExprs(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(rulesFile)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", rulesFile, err)
	}
	runbook, err := os.ReadFile(runbookFile)
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, line := range strings.Split(string(runbook), "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			headings[strings.TrimSpace(h)] = true
		}
	}
	exprs := map[string]string{}
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			exprs["alert "+r.Alert] = r.Expr
			if !slices.Contains([]string{"critical", "warning", "info"}, r.Labels["severity"]) {
				t.Errorf("alert %s: severity %q", r.Alert, r.Labels["severity"])
			}
			if !headings[r.Alert] || !strings.HasSuffix(r.Annotations["runbook_url"], "/docs/runbook.md#"+strings.ToLower(r.Alert)) {
				t.Errorf("alert %s: no section \"## %s\" in %s, or a runbook_url that does not point at it", r.Alert, r.Alert, runbookFile)
			}
		}
	}
	return exprs
}
