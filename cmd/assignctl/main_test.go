package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"testing"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
)

// startServer serves assignd in-process on a loopback port.
func startServer(t *testing.T) string {
	t.Helper()
	srv, err := server.New(server.DefaultSelector(), slog.New(slog.DiscardHandler))
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
			code, out, errOut := ctl(t, "", "--addr", addr, "assign", "-f", f, "-o", "json")
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
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
	code, out, errOut := ctl(t, "", "assign", "--addr", addr, "-f", "../../examples/cooperative-explicit.json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`group "checkout"  generation 5  assignor cooperative-sticky@1  protocol COOPERATIVE  policy default/`,
		"follow-up rebalance required",
		"MEMBER", "consumer-1", "consumer-2", "consumer-3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
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
		{},
		{"frobnicate"},
		{"assign"},
		{"assign", "-f", "../../examples/range-racks.json", "-o", "yaml"},
		{"assign", "-f", "no-such-file.json"},
		{"assign", "-f", "../../examples/README.md"},
		{"assignors", "extra"},
		{"--tls-cert", "x.crt", "assignors"},
	} {
		if code, _, _ := ctl(t, "", append([]string{"--addr", "127.0.0.1:1"}, args...)...); code != exitUsage {
			t.Errorf("assignctl %q: exit %d, want %d", args, code, exitUsage)
		}
	}
	if code, out, _ := ctl(t, "", "help"); code != exitOK || !strings.Contains(out, "assignors") {
		t.Errorf("help: exit %d\n%s", code, out)
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
	if code != exitFail || !strings.Contains(errOut, "Unavailable") {
		t.Errorf("exit %d, stderr %s; want 1 and Unavailable", code, errOut)
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
