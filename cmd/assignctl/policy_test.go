package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/policy"
)

func TestPolicyCheck(t *testing.T) {
	example := filepath.Join("..", "..", "examples", "policy.yaml")
	p, err := policy.Load(example)
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ctl(t, "", "policy", "check", example)
	want := fmt.Sprintf("ok: revision %s, rules freeze-billing, payments-v2, payments-v1, analytics-roundrobin, default\n", p.Revision())
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
	for _, want := range []string{bad + `:5: rule "a": rollout.percent: `, `assignor: `, `name: `} {
		if !strings.Contains(errOut, want) {
			t.Errorf("problems lack %q:\n%s", want, errOut)
		}
	}

	if code, _, errOut := ctl(t, "", "policy", "check", filepath.Join(t.TempDir(), "missing.yaml")); code != exitFail || !strings.Contains(errOut, "missing.yaml") {
		t.Errorf("missing file: exit %d %s", code, errOut)
	}
}

// fixedExplainer explains every known name the same way and refuses
// others, listing the names, as the policy does.
type fixedExplainer struct{ names []string }

func (f fixedExplainer) ExplainPolicy(_ context.Context, q server.Query) (server.Explanation, error) {
	for _, n := range f.names {
		if n == q.ProtocolName {
			return server.Explanation{
				Policy: "staged/abc", Rule: "staged", Revision: "abc", Description: "v2 for some",
				Bucket: 12, Reason: "bucket 12 is below 1000 (rollout.percent 10)", Assignor: "cooperative-sticky@2", Protocol: assign.Cooperative,
				Params:  server.PolicyParams{RackAware: true, MaxMovesPerRebalance: 64},
				Shadow:  &server.ShadowPolicy{Assignor: "cooperative-sticky@1", Params: server.PolicyParams{RackAware: true}},
				Skipped: []server.SkippedRule{{Rule: "frozen", Reason: "group matches none"}, {Rule: "other", Reason: "caller ..."}},
			}, nil
		}
	}
	return server.Explanation{}, namesError(f.names)
}

type namesError []string

func (e namesError) Error() string           { return "unknown protocol name" }
func (e namesError) Unwrap() error           { return server.ErrUnknownProtocol }
func (e namesError) ProtocolNames() []string { return e }

func startExplainServer(t *testing.T, names ...string) string {
	t.Helper()
	srv, err := server.New(server.DefaultSelector(), slog.New(slog.DiscardHandler), server.WithExplainer(fixedExplainer{names}))
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return lis.Addr().String()
}

func TestPolicyExplain(t *testing.T) {
	addr := startExplainServer(t, "cooperative-sticky", "custom")
	code, out, errOut := ctl(t, "", "--addr", addr, "policy", "explain", "g", "cooperative-sticky")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`group "g"  protocol cooperative-sticky  caller (none)`,
		"  policy       staged/abc\n",
		"  description  v2 for some\n",
		"  reason       bucket 12 is below 1000 (rollout.percent 10)\n",
		"  bucket       12\n",
		"  assignor     cooperative-sticky@2 (COOPERATIVE when the request leaves the rebalance protocol unspecified)\n",
		"  params       rack_aware=true max_moves_per_rebalance=64 freeze=false\n",
		"  shadow       cooperative-sticky@1 rack_aware=true max_moves_per_rebalance=0 freeze=false\n",
		"  skipped      frozen: group matches none\n               other: caller ...\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	// Without a protocol name: every name the policy answers for.
	code, out, errOut = ctl(t, "", "policy", "explain", "g", "--addr", addr, "--caller-common-name", "leader-a")
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
}

func TestPolicyUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"policy"},
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
	if code, out, _ := ctl(t, "", "help"); code != exitOK || !strings.Contains(out, "policy explain") || !strings.Contains(out, "policy check") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
}

func TestParseInterspersed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  string
		o    string
	}{
		{[]string{"g", "range"}, "g range", ""},
		{[]string{"-o", "json", "g"}, "g", "json"},
		{[]string{"g", "-o", "json", "range"}, "g range", "json"},
		{[]string{"g", "--", "-o"}, "g -o", ""},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		o := fs.String("o", "", "")
		pos, err := parseInterspersed(fs, tc.args)
		if err != nil || strings.Join(pos, " ") != tc.pos || *o != tc.o {
			t.Errorf("%q: %q -o %q (%v), want %q -o %q", tc.args, pos, *o, err, tc.pos, tc.o)
		}
	}
}
