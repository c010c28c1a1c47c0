package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/policy"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/contains"
)

func TestPolicyCheck(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "policy.yaml")
	p, err := policy.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ctl(t, "", "policy", "check", example)
	want := fmt.Sprintf("ok: revision %s, rules freeze-billing, payments-v2, payments-v1, analytics-roundrobin, payments-streams, default\n", p.Revision())
	if code != exitOK || out != want {
		t.Errorf("valid file: exit %d\n%s%s\nwant %s", code, out, errOut, want)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 1\nrules:\n  - name: a\n    assignor: range@1\n    rollout: {percent: 120}\n  - name: a\n    assignor: nope@1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = ctl(t, "", "policy", "check", bad)
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != exitFail || out != "" || len(lines) < 3 {
		t.Fatalf("invalid file: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, bad+":") {
			t.Errorf("problem line %q does not start with file:line", l)
		}
	}
	contains.All(t, "problems", errOut, bad+`:5: rule "a": rollout.percent: `, `assignor: `, `name: `)

	if code, _, errOut := ctl(t, "", "policy", "check", filepath.Join(t.TempDir(), "missing.yaml")); code != exitFail || !strings.Contains(errOut, "missing.yaml") {
		t.Errorf("missing file: exit %d %s", code, errOut)
	}
}

// fixedExplainer explains every known name the same way and refuses
// others, listing the names, as the policy does. It counts the calls
// without a protocol name.
type fixedExplainer struct {
	names   []string
	unnamed *atomic.Int32
}

// listingExplainer lists its names for ListAssignors, as the policy does.
type listingExplainer struct{ fixedExplainer }

func (l listingExplainer) ProtocolNames() []string { return l.names }

func (f fixedExplainer) ExplainPolicy(_ context.Context, q selection.Query) (selection.Explanation, error) {
	if q.ProtocolName == "" {
		f.unnamed.Add(1)
	}
	for _, n := range f.names {
		if n == q.ProtocolName {
			return selection.Explanation{
				Policy: "staged/abc", Rule: "staged", Revision: "abc", Description: "v2 for some",
				Bucket: 12, Reason: "bucket 12 is below 1000 (rollout.percent 10)", Assignor: "cooperative-sticky@2", Protocol: assign.Cooperative,
				Params: selection.PolicyParams{RackAware: true, MaxMovesPerRebalance: 64,
					LoadTolerance: assign.DefaultLoadTolerance, LoadHysteresis: assign.DefaultLoadHysteresis},
				Shadow: &selection.ShadowPolicy{Assignor: "load-sticky@1", Params: selection.PolicyParams{RackAware: true,
					LoadTolerance: 0.25, LoadHysteresis: assign.DefaultLoadHysteresis, MaxCountSkew: 3}},
				Skipped: []selection.SkippedRule{{Rule: "frozen", Reason: "group matches none"}, {Rule: "other", Reason: "caller ..."}},
			}, nil
		}
	}
	return selection.Explanation{}, namesError(f.names)
}

type namesError []string

func (e namesError) Error() string           { return "unknown protocol name" }
func (e namesError) Unwrap() error           { return selection.ErrUnknownProtocol }
func (e namesError) ProtocolNames() []string { return e }

// startExplainServer serves a listingExplainer of names, or with listing
// false a fixedExplainer (a server that does not list its names), and
// returns its address and the count of calls without a protocol name.
func startExplainServer(t *testing.T, listing bool, names ...string) (string, *atomic.Int32) {
	t.Helper()
	f := fixedExplainer{names: names, unnamed: new(atomic.Int32)}
	var e selection.Explainer = f
	if listing {
		e = listingExplainer{f}
	}
	return serve(t, selection.Default(), server.WithExplainer(e)), f.unnamed
}

func TestPolicyExplain(t *testing.T) {
	addr, unnamed := startExplainServer(t, true, "cooperative-sticky", "custom")
	out := ctlOK(t, "--addr", addr, "policy", "explain", "g", "cooperative-sticky")
	contains.All(t, "output", out,
		`group "g"  protocol cooperative-sticky  caller (none)`,
		"  policy       staged/abc\n",
		"  description  v2 for some\n",
		"  reason       bucket 12 is below 1000 (rollout.percent 10)\n",
		"  bucket       12\n",
		"  assignor     cooperative-sticky@2 (COOPERATIVE when the request leaves the rebalance protocol unspecified)\n",
		"  params       rack_aware=true max_moves_per_rebalance=64 freeze=false\n",
		"  shadow       load-sticky@1 rack_aware=true max_moves_per_rebalance=0 freeze=false load_tolerance=0.25 max_count_skew=3\n",
		"  skipped      frozen: group matches none\n               other: caller ...\n",
	)

	// Without a protocol name: every name the policy answers for.
	code, out, errOut := ctl(t, "", "policy", "explain", "g", "--addr", addr, "--caller-common-name", "leader-a")
	if code != exitOK || strings.Count(out, `group "g"`) != 2 || !strings.Contains(out, "protocol custom") ||
		!strings.Contains(out, `caller subject "" common name "leader-a"`) {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
	code, out, errOut = ctl(t, "", "--addr", addr, "policy", "explain", "-o", "json", "g")
	var byName map[string]map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &byName) != nil || len(byName) != 2 || byName["custom"]["rule"] != "staged" {
		t.Errorf("-o json without a protocol: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = ctl(t, "", "--addr", addr, "policy", "explain", "-o", "json", "g", "custom")
	var one map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &one) != nil || one["assignor"] != "cooperative-sticky@2" {
		t.Errorf("-o json: exit %d\n%s", code, out)
	}

	code, _, errOut = ctl(t, "", "--addr", addr, "policy", "explain", "g", "nope")
	if code != exitFail || !strings.Contains(errOut, "InvalidArgument") || !strings.Contains(errOut, `protocol_names="cooperative-sticky,custom"`) {
		t.Errorf("unknown protocol: exit %d\n%s", code, errOut)
	}
	// The names came from ListAssignors: no explanation was asked for
	// without a protocol name (it would fail, and show in metrics).
	if n := unnamed.Load(); n != 0 {
		t.Errorf("%d ExplainPolicy calls without a protocol name", n)
	}
}

// A server that does not list its protocol names in ListAssignors (an
// older assignd) is asked the old way, and the CLI still explains every
// name.
func TestPolicyExplainNamesFromRefusal(t *testing.T) {
	addr, unnamed := startExplainServer(t, false, "cooperative-sticky", "custom")
	code, out, errOut := ctl(t, "", "--addr", addr, "policy", "explain", "g")
	if code != exitOK || strings.Count(out, `group "g"`) != 2 || !strings.Contains(out, "protocol custom") {
		t.Errorf("exit %d:\n%s%s", code, out, errOut)
	}
	if n := unnamed.Load(); n != 1 {
		t.Errorf("%d ExplainPolicy calls without a protocol name, want the 1 that learns the names", n)
	}
}

func TestPolicyUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"policy", "frobnicate"},
		{"policy", "check"},
		{"policy", "check", "a.yaml", "b.yaml"},
		{"policy", "explain"},
		{"policy", "explain", "g", "range", "extra"},
		{"policy", "explain", "g", "range", "-o", "yaml"},
	} {
		if code, _, _ := ctl(t, "", append([]string{"--addr", "127.0.0.1:1"}, args...)...); code != exitUsage {
			t.Errorf("assignctl %q: exit %d, want %d", args, code, exitUsage)
		}
	}
	for _, args := range [][]string{{"policy"}, {"policy", "--help"}, {"help", "policy"}} {
		if code, out, _ := ctl(t, "", args...); code != exitOK || !strings.Contains(out, "validate a policy file") || !strings.Contains(out, "show the rule, assignor") {
			t.Errorf("%q: exit %d\n%s", args, code, out)
		}
	}
}

// Flags go anywhere among the arguments; after "--" everything is
// positional.
func TestInterspersedFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  string
		o    string
	}{
		{[]string{"g", "range"}, "g range", "table"},
		{[]string{"-o", "json", "g"}, "g", "json"},
		{[]string{"g", "-o", "json", "range"}, "g range", "json"},
		{[]string{"g", "--", "-o"}, "g -o", "table"},
	} {
		a := &app{}
		root := a.rootCommand()
		cmd, rest, err := root.Find(append([]string{"policy", "explain"}, tc.args...))
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatal(err)
		}
		if pos := strings.Join(cmd.Flags().Args(), " "); pos != tc.pos || a.output != tc.o {
			t.Errorf("%q: %q -o %q, want %q -o %q", tc.args, pos, a.output, tc.pos, tc.o)
		}
	}
}

// TestPolicyExplainStreams: --streams explains a streams group's label,
// its rule and task assignor, without a protocol name.
func TestPolicyExplainStreams(t *testing.T) {
	p, err := policy.Parse("p.yaml", []byte("version: 1\nrules:\n  - name: wordcount\n    match: {group_types: [streams], groups: [kip1071:wordcount]}\n    task_assignor: sticky@1\n"))
	if err != nil {
		t.Fatal(err)
	}
	addr := serve(t, selection.Default(), server.WithExplainer(p))
	code, out, errOut := ctl(t, "", "--addr", addr, "policy", "explain", "kip1071:wordcount", "--streams")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	contains.All(t, "output", out, `group "kip1071:wordcount"  streams group  caller (none)`,
		"  policy       wordcount/"+p.Revision()+"\n", "  assignor     sticky@1 (a task assignor)\n")
	if strings.Contains(out, "params") || strings.Contains(out, "shadow") {
		t.Errorf("a streams group's explanation lists partition assignors' fields:\n%s", out)
	}
	if code, _, errOut = ctl(t, "", "--addr", addr, "policy", "explain", "g", "range", "--streams"); code == exitOK || !strings.Contains(errOut, "no protocol name") {
		t.Errorf("--streams with a protocol name: exit %d: %s", code, errOut)
	}
}
