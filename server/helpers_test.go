package server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"
	"pgregory.net/rapid"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/wire"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/selection"
	"github.com/assignd/assignd/testbed/syncbuf"
	"github.com/assignd/assignd/testbed/testcerts"
)

// testServer is an in-process assignd on a bufconn listener.
type testServer struct {
	srv    *server.Server
	conn   *grpc.ClientConn
	client assigndv1.AssignmentServiceClient
	logs   *logBuffer
}

// newTelemetry is the process telemetry as assignd builds it, shut down
// when the test ends.
func newTelemetry(t *testing.T) *server.Telemetry {
	t.Helper()
	tel, err := server.NewTelemetry(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	return tel
}

// serveOps serves ts's ops endpoints, tel's /metrics among them, until
// the test ends.
func serveOps(t *testing.T, ts *testServer, tel *server.Telemetry) *httptest.Server {
	ops := httptest.NewServer(ts.srv.OpsHandler(tel.MetricsHandler()))
	t.Cleanup(ops.Close)
	return ops
}

// startMutualTLS serves a Server built with sel and opts that requires a
// client certificate from a new test CA, until the test ends; dial
// connects to it presenting certs (none: no client certificate).
func startMutualTLS(t *testing.T, sel selection.Selector, opts ...server.Option) (ca *testcerts.CA, dial func(certs ...tls.Certificate) *grpc.ClientConn) {
	t.Helper()
	ca = testcerts.New(t)
	srv, err := server.New(sel, slog.New(slog.DiscardHandler), append(opts, server.WithTLS(&tls.Config{
		Certificates: []tls.Certificate{ca.Server(t)}, ClientCAs: ca.Pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12,
	}))...)
	if err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	return ca, func(certs ...tls.Certificate) *grpc.ClientConn {
		creds := credentials.NewTLS(&tls.Config{RootCAs: ca.Pool, Certificates: certs, ServerName: testcerts.ServerName})
		return dialBufconn(t, lis, grpc.WithTransportCredentials(creds))
	}
}

// startServer serves a Server built with sel (DefaultSelector when nil) and
// opts, and closes it when the test ends.
// drawStandard draws a standard protocol name (in the order of
// [assign.Standards]) and the engine that serves it.
func drawStandard(rt *rapid.T) (string, assign.Assignor) {
	var names []string
	for _, s := range assign.Standards() {
		names = append(names, s.Name)
	}
	name := rapid.SampledFrom(names).Draw(rt, "assignor")
	a, _ := assign.Lookup(name, 0)
	return name, a
}

// get fetches url (the ops listener's, say) and returns the status and
// the body; a request that fails fails the test.
func get(t testing.TB, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, body
}

// checkMetrics fetches the Prometheus text at url and reports each
// pattern no line matches, the text with them; it returns the text.
func checkMetrics(t testing.TB, url string, patterns ...string) []byte {
	t.Helper()
	_, body := get(t, url)
	missing := false
	for _, pattern := range patterns {
		if !regexp.MustCompile(pattern).Match(body) {
			t.Errorf("/metrics has no line matching %s", pattern)
			missing = true
		}
	}
	if missing {
		t.Logf("/metrics:\n%s", body)
	}
	return body
}

// checkRefused checks a refused call's status: its code, the ErrorInfo
// reason, the one field violation (when field is set) and the member the
// metadata names ("" for none).
func checkRefused(t testing.TB, err error, code codes.Code, field, member string, reason assigndv1.ErrorReason) {
	t.Helper()
	got, fv, info := statusDetails(t, err)
	if got != code || info == nil || info.GetReason() != reason.String() {
		t.Fatalf("got %v (%v), want %s %s", err, info, code, reason)
	}
	if field != "" && (fv == nil || fv.GetField() != field) {
		t.Errorf("field violation %v, want field %q: %v", fv, field, err)
	}
	if m := info.GetMetadata()[assigndv1.MetadataMemberID]; m != member {
		t.Errorf("member %q, want %q: %v", m, member, err)
	}
}

// checkOverBudget checks that a call was refused for the memory budget.
func checkOverBudget(t testing.TB, err error) {
	t.Helper()
	code, _, info := statusDetails(t, err)
	if code != codes.ResourceExhausted || info.GetMetadata()[assigndv1.MetadataLimit] != "memory_bytes" {
		t.Fatalf("got %v (%v), want RESOURCE_EXHAUSTED on memory_bytes", err, info)
	}
}

// checkSameBytes makes n calls and fails unless every answer marshals
// (deterministically) to the first one's bytes.
func checkSameBytes[M proto.Message](t testing.TB, n int, call func() (M, error)) {
	t.Helper()
	var first []byte
	for i := range n {
		resp, err := call()
		if err != nil {
			t.Fatal(err)
		}
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if !bytes.Equal(b, first) {
			t.Fatalf("call %d answered differently", i)
		}
	}
}

func startServer(t testing.TB, sel selection.Selector, opts ...server.Option) *testServer {
	t.Helper()
	if sel == nil {
		sel = selection.Default()
	}
	logs := &logBuffer{}
	logger := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := server.New(sel, logger, opts...)
	if err != nil {
		t.Fatal(err)
	}
	lis := bufconn.Listen(1 << 20)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	conn := dialBufconn(t, lis)
	ts := &testServer{srv: srv, conn: conn, client: assigndv1.NewAssignmentServiceClient(conn), logs: logs}
	t.Cleanup(func() {
		conn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ts
}

func dialBufconn(t testing.TB, lis *bufconn.Listener, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	opts = append([]grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(server.DefaultMaxRecvBytes)),
	}, opts...)
	conn, err := grpc.NewClient("passthrough:///bufnet", opts...)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// callCtx bounds every test call.
func callCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// logBuffer collects JSON log lines, safe for concurrent writers.
type logBuffer struct{ syncbuf.Buffer }

// lines returns the decoded log records whose message is msg.
func (b *logBuffer) lines(t testing.TB, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if l == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q: %v", l, err)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// tb is what the helpers need from *testing.T and *rapid.T alike.
type tb interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Errorf(format string, args ...any)
}

// form says how requestFor sends a member: its raw subscription at a
// version, or explicit fields.
type form int16

const explicit form = -1

// requestFor turns an engine group into a request, sending member i in
// forms[i%len(forms)], and returns the group as the engine will see it:
// raw subscriptions of old versions cannot carry the newer fields.
func requestFor(t tb, g *assign.Group, protocolName string, forms ...form) (*assigndv1.AssignRequest, *assign.Group) {
	t.Helper()
	if len(forms) == 0 {
		forms = []form{explicit}
	}
	req := &assigndv1.AssignRequest{
		GroupId: "g", GenerationId: g.Generation, ProtocolName: protocolName,
		RebalanceProtocol: apiconv.ProtocolToAPI(g.Protocol),
	}
	seen := &assign.Group{Generation: g.Generation, Protocol: g.Protocol, Topics: g.Topics}
	for _, tp := range g.Topics {
		pt := &assigndv1.Topic{Name: tp.Name, PartitionCount: tp.Partitions}
		for p, racks := range tp.Racks {
			if racks != nil {
				pt.PartitionRacks = append(pt.PartitionRacks, &assigndv1.PartitionRacks{Partition: int32(p), Racks: racks})
			}
		}
		req.Topics = append(req.Topics, pt)
	}
	for i, m := range g.Members {
		pm := &assigndv1.Member{MemberId: m.ID}
		if m.InstanceID != "" {
			pm.GroupInstanceId = &m.InstanceID
		}
		eff := m
		switch f := forms[i%len(forms)]; f {
		case explicit:
			pm.Topics = m.Topics
			pm.OwnedPartitions = tpsOut(m.Owned)
			pm.UserData = m.UserData
			if m.Generation != assign.NoGeneration {
				gen := m.Generation
				pm.Generation = &gen
			}
			if m.Rack != "" {
				rack := m.Rack
				pm.RackId = &rack
			}
		default:
			v := int16(f)
			if v < 1 {
				eff.Owned = nil
			}
			if v < 2 {
				eff.Generation = assign.NoGeneration
			}
			if v < 3 {
				eff.Rack = ""
			}
			pm.Metadata = wire.AppendSubscription(nil, &wire.Subscription{
				Version: v, Topics: m.Topics, UserData: m.UserData, Owned: m.Owned,
				Generation: m.Generation, Rack: m.Rack,
			})
		}
		req.Members = append(req.Members, pm)
		seen.Members = append(seen.Members, eff)
	}
	return req, seen
}

func tpsOut(in []assign.TopicPartitions) []*assigndv1.TopicPartitions {
	var out []*assigndv1.TopicPartitions
	for _, tp := range in {
		out = append(out, &assigndv1.TopicPartitions{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	return out
}

func tpsIn(in []*assigndv1.TopicPartitions) []assign.TopicPartitions {
	var out []assign.TopicPartitions
	for _, tp := range in {
		out = append(out, assign.TopicPartitions{Topic: tp.GetTopic(), Partitions: tp.GetPartitions()})
	}
	return out
}

func equalTPs(a, b []assign.TopicPartitions) bool {
	return slices.EqualFunc(a, b, func(x, y assign.TopicPartitions) bool {
		return x.Topic == y.Topic && slices.Equal(x.Partitions, y.Partitions)
	})
}

// statusDetails returns the code, the single BadRequest field violation (if
// any) and the ErrorInfo of an error.
func statusDetails(t testing.TB, err error) (codes.Code, *errdetails.BadRequest_FieldViolation, *errdetails.ErrorInfo) {
	t.Helper()
	st := status.Convert(err)
	var fv *errdetails.BadRequest_FieldViolation
	var info *errdetails.ErrorInfo
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.BadRequest:
			if len(d.GetFieldViolations()) != 1 {
				t.Fatalf("want one field violation, got %v", d.GetFieldViolations())
			}
			fv = d.GetFieldViolations()[0]
		case *errdetails.ErrorInfo:
			info = d
		}
	}
	return st.Code(), fv, info
}
