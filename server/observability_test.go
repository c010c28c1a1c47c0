package server_test

import (
	"context"
	"log/slog"
	"net"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/assigntest"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/shimtest"
)

// TestCallLog: one line per call, with the domain fields beside method,
// code and duration, and nothing of the payload but the group id.
func TestCallLog(t *testing.T) {
	ts := startServer(t, nil)
	g := assigntest.NewGroup().Protocol(assign.Cooperative).Topic("secret-topic", 4).
		Member("m1", "secret-topic").Member("m2", "secret-topic").Owns("m1", "secret-topic", 0, 1, 2, 3).Build()
	req, _ := requestFor(t, g, "cooperative-sticky", 3)
	req.GroupId = "orders"
	if _, err := ts.client.Assign(callCtx(t), req); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{GroupId: "bad"}); err == nil {
		t.Fatal("want an error for a missing protocol name")
	}
	if _, err := ts.client.ListAssignors(callCtx(t), &assigndv1.ListAssignorsRequest{}); err != nil {
		t.Fatal(err)
	}
	lines := ts.logs.lines(t, "finished call")
	if len(lines) != 3 {
		t.Fatalf("want 3 call lines, got %d:\n%s", len(lines), ts.logs)
	}
	ok := lines[0]
	for k, want := range map[string]any{
		"grpc.method": "Assign", "grpc.code": "OK", "group": "orders", "assignor": "cooperative-sticky@1",
		"protocol": "COOPERATIVE", "members": 2.0, "partitions": 2.0, "moved": 2.0, "revoked": 2.0, "pending": 2.0, "followup": true,
	} {
		if ok[k] != want {
			t.Errorf("log field %s = %v, want %v", k, ok[k], want)
		}
	}
	if _, has := ok["grpc.duration"]; !has {
		t.Errorf("no duration in %v", ok)
	}
	if p, _ := ok["policy"].(string); !strings.HasPrefix(p, "default/") {
		t.Errorf("policy = %v", ok["policy"])
	}
	if bad := lines[1]; bad["grpc.code"] != "InvalidArgument" || bad["group"] != "bad" || bad["level"] != "WARN" && bad["level"] != "INFO" {
		t.Errorf("error line = %v", bad)
	}
	if strings.Contains(ts.logs.String(), "secret-topic") {
		t.Error("the log contains payload (a topic name)")
	}
}

// TestCallLogPeer: over TCP, each call's line names the address of its
// own connection's client end, which the server notes once per
// connection.
func TestCallLogPeer(t *testing.T) {
	logs := &logBuffer{}
	srv, err := server.New(selection.Default(), slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	addr := shimtest.ServeServer(t, srv)
	var want []string
	for range 2 {
		var local string
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithContextDialer(func(ctx context.Context, addr string) (net.Conn, error) {
				c, err := (&net.Dialer{}).DialContext(ctx, "tcp", addr)
				if err == nil {
					local = c.LocalAddr().String()
				}
				return c, err
			}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		client := assigndv1.NewAssignmentServiceClient(conn)
		for range 2 {
			if _, err := client.ListAssignors(callCtx(t), &assigndv1.ListAssignorsRequest{}); err != nil {
				t.Fatal(err)
			}
		}
		want = append(want, local, local)
	}
	lines := logs.lines(t, "finished call")
	if len(lines) != len(want) {
		t.Fatalf("want %d call lines, got %d:\n%s", len(want), len(lines), logs)
	}
	for i, l := range lines {
		if l["peer.address"] != want[i] {
			t.Errorf("call %d: peer.address = %v, want %s (its connection's client end)", i, l["peer.address"], want[i])
		}
	}
	if want[0] == want[2] {
		t.Errorf("both connections have the local address %s", want[0])
	}
}

// TestMetrics scrapes /metrics after a few calls: the domain metrics per
// assignor and protocol, errors by code and reason, and otelgrpc's RPC
// latency.
func TestMetrics(t *testing.T) {
	tel := newTelemetry(t)
	if tel.Tracing() {
		t.Fatal("tracing must be off without OTEL_EXPORTER_OTLP_* variables")
	}
	ts := startServer(t, nil, server.WithMeterProvider(tel.MeterProvider()), server.WithTracerProvider(tel.TracerProvider()))
	ops := serveOps(t, ts, tel)

	g := assigntest.NewGroup().Protocol(assign.Cooperative).Topic("a", 4).
		Member("m1", "a").Member("m2", "a").Owns("m1", "a", 0, 1, 2, 3).Build()
	req, _ := requestFor(t, g, "cooperative-sticky", 3)
	if _, err := ts.client.Assign(callCtx(t), req); err != nil {
		t.Fatal(err)
	}
	_, _ = ts.client.Assign(callCtx(t), &assigndv1.AssignRequest{ProtocolName: "nope"})

	_, body := get(t, ops.URL+"/metrics")
	text := string(body)
	labels := `assignor="cooperative-sticky@1",.*protocol="COOPERATIVE"`
	for _, pattern := range []string{
		`assignd_assign_duration_seconds_bucket\{` + labels,
		`assignd_assign_members[a-z_]*_bucket\{` + labels,
		`assignd_assign_partitions[a-z_]*_sum\{` + labels + `.*\} 2`,
		`assignd_assign_moved[a-z_]*_total\{` + labels + `.*\} 2`,
		`assignd_assign_revoked[a-z_]*_total\{` + labels + `.*\} 2`,
		`assignd_assign_pending[a-z_]*_total\{` + labels + `.*\} 2`,
		`assignd_assign_followups[a-z_]*_total\{` + labels + `.*\} 1`,
		// labelled by rule and revision, and by both together as responses
		// report them
		`assignd_assign_duration_seconds_count\{.*policy="default/([0-9a-f]+)".*revision="[0-9a-f]+".*rule="default".*\} 1`,
		`assignd_assign_errors[a-z_]*_total\{.*code="InvalidArgument".*reason="ERROR_REASON_UNKNOWN_PROTOCOL_NAME".*\} 1`,
		`rpc_server_[a-z_]*duration[a-z_]*_bucket\{.*Assign`,
		// the time before the handler, two calls
		`assignd_rpc_intake_duration_seconds_count\{method="/assignd.v1.AssignmentService/Assign"\} 2`,
		// buckets that tell ordinary Assign calls apart (otelgrpc's own
		// start at 5 ms)
		`rpc_server_call_duration_seconds_bucket\{.*le="0.0001".*\}`,
		`assignd_build_info\{go="go[^"]+",revision="[^"]+",version="[^"]+"\} 1`,
		`go_goroutines `,
	} {
		if !regexp.MustCompile(pattern).MatchString(text) {
			t.Errorf("/metrics has no line matching %s", pattern)
		}
	}
	if strings.Contains(text, "otel_scope_") {
		t.Error("/metrics has otel_scope_* labels; they are turned off")
	}
	if m := regexp.MustCompile(`assignd_assign_duration_seconds_count\{.*policy="default/([0-9a-f]+)".*revision="([0-9a-f]+)"`).FindStringSubmatch(text); m == nil || m[1] != m[2] {
		t.Errorf("the revision label does not match the policy label: %q", m)
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("/metrics:\n%s", text)
	}
}

func TestTracingConfigured(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "x=y"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:4317"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "console"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}, false},
		{map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}, false},
	} {
		if got := server.TracingConfigured(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("TracingConfigured(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}
