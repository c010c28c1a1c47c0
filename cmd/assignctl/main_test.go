package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/contains"
)

// startServer serves assignd in-process on a loopback port.
func startServer(t *testing.T) string { return serve(t, selection.Default()) }

// serve serves a Server built with sel and opts on a loopback port until
// the test ends, and returns its address.
func serve(t *testing.T, sel selection.Selector, opts ...server.Option) string {
	t.Helper()
	srv, err := server.New(sel, slog.New(slog.DiscardHandler), opts...)
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

// ctl runs assignctl in-process.
func ctl(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// ctlOK runs assignctl with args and no input, and fails the test unless
// it exits 0; it returns the standard output.
func ctlOK(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := ctl(t, "", args...)
	if code != exitOK {
		t.Fatalf("%q: exit %d: %s", args, code, errOut)
	}
	return out
}

// TestExamples sends every example request: the valid ones must be
// assigned, the invalid ones rejected naming the field at fault.
func TestExamples(t *testing.T) {
	addr := startServer(t)
	valid, _ := filepath.Glob("../../examples/*.json")
	if len(valid) < 4 {
		t.Fatalf("found only %d examples", len(valid))
	}
	for _, f := range valid {
		t.Run(filepath.Base(f), func(t *testing.T) {
			out := ctlOK(t, "--addr", addr, "assign", "-f", f, "-o", "json")
			var resp map[string]any
			if err := json.Unmarshal([]byte(out), &resp); err != nil || resp["assignor"] == nil {
				t.Fatalf("-o json printed %q (%v)", out, err)
			}
		})
	}
	for file, field := range map[string]string{
		"metadata-and-fields.json": "members[0].topics",
		"cooperative-range.json":   "rebalance_protocol",
		"truncated-metadata.json":  "members[0].metadata",
	} {
		t.Run("invalid/"+file, func(t *testing.T) {
			code, _, errOut := ctl(t, "", "--addr", addr, "assign", "-f", "../../examples/invalid/"+file)
			if code != exitFail || !strings.Contains(errOut, "InvalidArgument") || !strings.Contains(errOut, "field "+field+":") ||
				!strings.Contains(errOut, "reason ERROR_REASON_") {
				t.Errorf("exit %d, stderr:\n%s\nwant InvalidArgument naming field %s", code, errOut, field)
			}
		})
	}
}

func TestAssignTable(t *testing.T) {
	addr := startServer(t)
	out := ctlOK(t, "assign", "--addr", addr, "-f", "../../examples/cooperative-explicit.json")
	contains.All(t, "table", out,
		`group "checkout"  generation 5  assignor cooperative-sticky@1  protocol COOPERATIVE  policy default/`,
		"follow-up rebalance required",
		"MEMBER", "consumer-1", "consumer-2", "consumer-3",
	)
}

func TestAssignStdinAndWarnings(t *testing.T) {
	addr := startServer(t)
	req := `{"protocolName":"range","members":[{"memberId":"m","topics":["a","gone"]}],"topics":[{"name":"a","partitionCount":3}]}`
	code, out, errOut := ctl(t, req, "--addr", addr, "assign", "-f", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "m       3      a[0-2]    -") || !strings.Contains(out, "warning: ") {
		t.Errorf("output:\n%s", out)
	}
}

func TestAssignorsAndHealth(t *testing.T) {
	addr := startServer(t)
	code, out, errOut := ctl(t, "", "--addr", addr, "assignors")
	if code != exitOK || !strings.Contains(out, "cooperative-sticky  1        COOPERATIVE, EAGER") || !strings.Contains(out, "range") {
		t.Errorf("assignors: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = ctl(t, "", "health", "--addr", addr)
	if code != exitOK || strings.TrimSpace(out) != "SERVING" {
		t.Errorf("health: exit %d %q %s", code, out, errOut)
	}
	code, out, _ = ctl(t, "", "health", "--addr", addr, "--service", assigndv1.AssignmentService_ServiceDesc.ServiceName)
	if code != exitOK || strings.TrimSpace(out) != "SERVING" {
		t.Errorf("health of the service: exit %d %q", code, out)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"assign"},
		{"assign", "-f", "../../examples/range-racks.json", "-o", "yaml"},
		{"assign", "-f", "no-such-file.json"},
		{"assign", "-f", "../../examples/README.md"},
		{"assignors", "extra"},
		{"--tls-cert", "x.crt", "assignors"},
		{"assignors", "--no-such-flag"},
		{"assignors", "-o", "yaml"},
		{"health", "extra"},
	} {
		if code, _, _ := ctl(t, "", append([]string{"--addr", "127.0.0.1:1"}, args...)...); code != exitUsage {
			t.Errorf("assignctl %q: exit %d, want %d", args, code, exitUsage)
		}
	}
}

// Help, from any of its spellings, goes to stdout and exits 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{}, {"help"}, {"--help"}, {"-h"}} {
		code, out, errOut := ctl(t, "", args...)
		if code != exitOK || errOut != "" || !strings.Contains(out, "assignors") || !strings.Contains(out, "Exit status: 0 success") {
			t.Errorf("%q: exit %d, stderr %q\n%s", args, code, errOut, out)
		}
	}
	for _, args := range [][]string{{"assign", "--help"}, {"help", "assign"}} {
		code, out, errOut := ctl(t, "", args...)
		if code != exitOK || errOut != "" || !strings.Contains(out, "assignctl assign -f FILE") || !strings.Contains(out, "ASSIGNCTL_ADDR") {
			t.Errorf("%q: exit %d, stderr %q\n%s", args, code, errOut, out)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, errOut := ctl(t, "", "--version")
	if code != exitOK || !strings.HasPrefix(out, "assignctl ") || errOut != "" {
		t.Errorf("--version: exit %d %q %q", code, out, errOut)
	}
}

func TestCompletion(t *testing.T) {
	code, out, errOut := ctl(t, "", "completion", "bash")
	if code != exitOK || !strings.Contains(out, "assignctl") || errOut != "" {
		t.Errorf("completion bash: exit %d, stderr %q", code, errOut)
	}
}

// -o json works on every command that prints something.
func TestJSONOutput(t *testing.T) {
	addr := startServer(t)
	for _, args := range [][]string{
		{"assignors"},
		{"health"},
		{"assign", "-f", "../../examples/range-racks.json"},
		{"policy", "check", "../../examples/policy.yaml"},
	} {
		code, out, errOut := ctl(t, "", append([]string{"--addr", addr, "-o", "json"}, args...)...)
		var v map[string]any
		if code != exitOK || json.Unmarshal([]byte(out), &v) != nil || len(v) == 0 {
			t.Errorf("%q -o json: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// Every connection flag has an environment variable; a flag wins.
func TestConnectionEnv(t *testing.T) {
	addr := startServer(t)
	t.Setenv("ASSIGNCTL_ADDR", addr)
	if code, out, errOut := ctl(t, "", "health"); code != exitOK || strings.TrimSpace(out) != "SERVING" {
		t.Errorf("ASSIGNCTL_ADDR: exit %d %q %s", code, out, errOut)
	}
	if code, _, _ := ctl(t, "", "health", "--addr", "127.0.0.1:1", "--timeout", "2s"); code != exitUnreachable {
		t.Errorf("--addr over ASSIGNCTL_ADDR: exit %d, want %d", code, exitUnreachable)
	}
	// Each variable sets its flag, unless the flag is on the command line.
	env := map[string]string{
		"ASSIGNCTL_ADDR": "h:1", "ASSIGNCTL_TIMEOUT": "3s", "ASSIGNCTL_TLS": "true", "ASSIGNCTL_TLS_CA": "ca.pem",
		"ASSIGNCTL_TLS_CERT": "c.pem", "ASSIGNCTL_TLS_KEY": "k.pem", "ASSIGNCTL_TLS_SERVER_NAME": "n", "ASSIGNCTL_MAX_RECV_BYTES": "1024",
	}
	if len(env) != len(connFlagNames) {
		t.Fatalf("the test covers %d variables, there are %d connection flags", len(env), len(connFlagNames))
	}
	a := &app{}
	root := a.rootCommand()
	if err := root.PersistentFlags().Parse([]string{"--tls-server-name", "flag"}); err != nil {
		t.Fatal(err)
	}
	if err := a.conn.applyEnv(root.PersistentFlags(), func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	want := connFlags{addr: "h:1", timeout: 3 * time.Second, tls: true, caFile: "ca.pem", certFile: "c.pem", keyFile: "k.pem", serverName: "flag", maxRecv: 1024}
	if a.conn != want {
		t.Errorf("after applyEnv: %+v, want %+v", a.conn, want)
	}
	// A bad value is a usage error naming the variable.
	t.Setenv("ASSIGNCTL_TIMEOUT", "soon")
	if code, _, errOut := ctl(t, "", "health"); code != exitUsage || !strings.Contains(errOut, "ASSIGNCTL_TIMEOUT") {
		t.Errorf("ASSIGNCTL_TIMEOUT=soon: exit %d, stderr %s", code, errOut)
	}
}

func TestUnreachable(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	code, _, errOut := ctl(t, "", "--addr", addr, "--timeout", "2s", "assignors")
	if code != exitUnreachable || !strings.Contains(errOut, "Unavailable") {
		t.Errorf("exit %d, stderr %s; want %d and Unavailable", code, errOut, exitUnreachable)
	}
}

func TestRanges(t *testing.T) {
	for _, tc := range []struct {
		in   []*assigndv1.TopicPartitions
		want string
	}{
		{nil, "-"},
		{[]*assigndv1.TopicPartitions{{Topic: "a", Partitions: []int32{0}}}, "a[0]"},
		{[]*assigndv1.TopicPartitions{{Topic: "a", Partitions: []int32{0, 1, 2, 5, 7, 8}}, {Topic: "b", Partitions: []int32{3}}}, "a[0-2,5,7-8] b[3]"},
	} {
		if got := ranges(tc.in); got != tc.want {
			t.Errorf("ranges(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestExitCode(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		started bool
		want    int
	}{
		{"flag or argument error, before the command ran", errors.New("unknown flag"), false, exitUsage},
		{"usage error from the command", usageError{errors.New("-f FILE is required")}, true, exitUsage},
		{"server refused", status.Error(codes.InvalidArgument, "bad"), true, exitFail},
		{"server failed", status.Error(codes.Internal, "bug"), true, exitFail},
		{"not serving", errNotServing, true, exitFail},
		{"policy problems", errReported, true, exitFail},
		{"check failed", errCheckFailed, true, exitCheckFailed},
		{"no connection", status.Error(codes.Unavailable, "refused"), true, exitUnreachable},
		{"no answer in time", status.Error(codes.DeadlineExceeded, "late"), true, exitUnreachable},
		{"wrapped", fmt.Errorf("calling: %w", status.Error(codes.Unavailable, "x")), true, exitUnreachable},
	} {
		if got := exitCode(tc.err, tc.started); got != tc.want {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.want)
		}
	}
}
