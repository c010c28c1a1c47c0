package server_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/assign/assigntest"
	"github.com/assignd/assignd/server"
)

// otlpReceiver is an in-process OTLP/HTTP trace receiver: it accepts
// protobuf exports on /v1/traces and keeps the span names and the value of
// one request header.
type otlpReceiver struct {
	mu      sync.Mutex
	spans   []string
	headers []string
	other   []string // requests to any other path or content type
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" || err != nil {
		r.other = append(r.other, req.Method+" "+req.URL.Path+" "+req.Header.Get("Content-Type"))
		http.Error(w, "not an OTLP/HTTP protobuf trace export", http.StatusNotFound)
		return
	}
	var export coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &export); err != nil {
		r.other = append(r.other, "undecodable: "+err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.headers = append(r.headers, req.Header.Get("X-Tenant"))
	for _, rs := range export.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.spans = append(r.spans, s.GetName())
			}
		}
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

// TestOTLPHTTPFromEnvironment: with the standard variables asking for
// OTLP over http/protobuf, the spans of an Assign call reach an OTLP/HTTP
// receiver, with the headers OTEL_EXPORTER_OTLP_HEADERS names. (Before
// autoexport, http/protobuf silently got gRPC.)
func TestOTLPHTTPFromEnvironment(t *testing.T) {
	recv := &otlpReceiver{}
	collector := httptest.NewServer(recv)
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=team-a")
	t.Setenv("OTEL_TRACES_EXPORTER", "otlp")

	tel, err := server.NewTelemetry(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	if !tel.Tracing() {
		t.Fatal("tracing is off with OTEL_EXPORTER_OTLP_ENDPOINT set")
	}
	ts := startServer(t, nil, server.WithMeterProvider(tel.MeterProvider()), server.WithTracerProvider(tel.TracerProvider()))
	g := assigntest.NewGroup().Topic("a", 4).Member("m1", "a").Member("m2", "a").Build()
	req, _ := requestFor(t, g, "range")
	if _, err := ts.client.Assign(callCtx(t), req); err != nil {
		t.Fatal(err)
	}
	// The server ends a call's span after the response is on its way, so
	// the client can have it first: stopping the server waits for the
	// handler and its span. Telemetry's Shutdown then flushes the batch.
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ts.srv.Shutdown(sctx); err != nil {
		t.Fatalf("server Shutdown: %v", err)
	}
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown (flushing the spans): %v", err)
	}

	recv.mu.Lock()
	defer recv.mu.Unlock()
	if len(recv.other) > 0 {
		t.Errorf("the receiver got requests that are not OTLP/HTTP trace exports: %q", recv.other)
	}
	found := false
	for _, name := range recv.spans {
		found = found || name == "assignd.v1.AssignmentService/Assign"
	}
	if !found {
		t.Errorf("no Assign span among the exported spans %q", recv.spans)
	}
	for _, h := range recv.headers {
		if h != "team-a" {
			t.Errorf("an export carried X-Tenant %q, want team-a (from OTEL_EXPORTER_OTLP_HEADERS)", h)
		}
	}
}
