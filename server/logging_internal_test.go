package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"regexp"
	"testing"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	"google.golang.org/grpc/peer"

	"github.com/assignd/assignd/assign"
)

// loggedCall is an answered Assign call's context, report and meta, as
// the call log sees them on a TCP connection.
func loggedCall(t testing.TB) (context.Context, interceptors.CallMeta) {
	ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 43210}})
	ctx = context.WithValue(ctx, connPeerKey{}, "127.0.0.1:43210")
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	t.Cleanup(cancel)
	ctx, rep := withReport(ctx)
	rep.group, rep.assignor, rep.protocol, rep.policy = "orders-eu", assign.CooperativeSticky(), "COOPERATIVE", "default/0123456789ab"
	rep.members, rep.partitions, rep.ok = 10, 96, true
	return ctx, interceptors.CallMeta{Service: "assignd.v1.AssignmentService", Method: "Assign"}
}

// TestCallLogLineOrder: the service and method, which the handler is
// given once per method, still come first, before the call's own fields,
// on every line.
func TestCallLogLineOrder(t *testing.T) {
	var out bytes.Buffer
	l := newCallLog(slog.New(slog.NewTextHandler(&out, nil)))
	ctx, meta := loggedCall(t)
	for range 2 {
		r, _ := l.reporter(ctx, meta)
		r.PostCall(nil, 150*time.Microsecond)
	}
	line := regexp.MustCompile(`^time=\S+ level=INFO msg="finished call" grpc.service=assignd.v1.AssignmentService grpc.method=Assign ` +
		`peer.address=127.0.0.1:43210 grpc.start_time=\S+ grpc.request.deadline=\S+ grpc.code=OK grpc.duration=150µs ` +
		`group=orders-eu assignor=cooperative-sticky@1 protocol=COOPERATIVE policy=default/0123456789ab members=10 partitions=96 ` +
		`moved=0 revoked=0 pending=0 followup=false warnings=0$`)
	lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), out.String())
	}
	for _, l := range lines {
		if !line.Match(l) {
			t.Errorf("line\n%s\ndoes not match\n%s", l, line)
		}
	}
}

// BenchmarkCallLogLine is one call's line, written by slog's text handler
// to a discarded writer.
func BenchmarkCallLogLine(b *testing.B) {
	l := newCallLog(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, meta := loggedCall(b)
	b.ReportAllocs()
	for b.Loop() {
		r, _ := l.reporter(ctx, meta)
		r.PostCall(nil, 150*time.Microsecond)
	}
}
