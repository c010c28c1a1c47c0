// Package shimtest holds what the tests of the Kafka-client adapters
// (kgoassign, saramaassign) need around them: a real assignd or a fake one
// on a loopback port, a client for it, an address nothing listens on, and
// a recording proxy that can hang or rewrite answers. Everything listens on
// 127.0.0.1 and stops when the test ends.
package shimtest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/assignd/assignd/client"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server"
	"github.com/assignd/assignd/server/selection"
)

// Quiet is a logger that discards everything.
var Quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// ServeAssignd runs a real assignd with the default policy and opts on a
// fresh 127.0.0.1 port until the test ends and returns its address.
func ServeAssignd(t testing.TB, opts ...server.Option) string {
	t.Helper()
	return ServeSelector(t, selection.Default(), opts...)
}

// ServeSelector runs a real assignd choosing assignors with sel (a
// policy.Source, say) and opts on a fresh 127.0.0.1 port until the test
// ends and returns its address.
func ServeSelector(t testing.TB, sel selection.Selector, opts ...server.Option) string {
	t.Helper()
	addr, stop, err := StartAssignd(sel, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return addr
}

// StartAssignd is [ServeSelector] for a caller with no test to end it (a
// testable example): it returns the address and stop, which shuts the
// server down gracefully within 5 s.
func StartAssignd(sel selection.Selector, opts ...server.Option) (addr string, stop func(), err error) {
	srv, err := server.New(sel, Quiet, opts...)
	if err != nil {
		return "", nil, err
	}
	if addr, err = listen(srv.Serve); err != nil {
		return "", nil, err
	}
	return addr, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	}, nil
}

// ServeFake serves an AssignmentService implementation, reported SERVING
// by the health service, on a fresh 127.0.0.1 port until the test ends.
func ServeFake(t testing.TB, svc assigndv1.AssignmentServiceServer) string {
	t.Helper()
	s := grpc.NewServer()
	assigndv1.RegisterAssignmentServiceServer(s, svc)
	hs := health.NewServer()
	hs.SetServingStatus(assigndv1.AssignmentService_ServiceDesc.ServiceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s, hs)
	return serve(t, s.Serve, s.Stop)
}

func serve(t testing.TB, run func(net.Listener) error, stop func()) string {
	t.Helper()
	addr, err := listen(run)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return addr
}

// listen runs run on a fresh 127.0.0.1 port in the background and
// returns the port's address.
func listen(run func(net.Listener) error) (string, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() { _ = run(lis) }()
	return lis.Addr().String(), nil
}

// ClosedAddr is a loopback address nothing listens on.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}

// NewClient is a client of addr, closed when the test ends.
func NewClient(t testing.TB, addr string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// Proxy records every Assign request and forwards it to Next; Rewrite,
// when set, replaces the answer; Block makes it hang until the caller
// gives up.
type Proxy struct {
	assigndv1.UnimplementedAssignmentServiceServer
	Next    *client.Client
	Rewrite func(*assigndv1.AssignResponse) (*assigndv1.AssignResponse, error)
	Block   bool

	mu   sync.Mutex
	reqs []*assigndv1.AssignRequest
}

// Assign implements assigndv1.AssignmentServiceServer.
func (p *Proxy) Assign(ctx context.Context, req *assigndv1.AssignRequest) (*assigndv1.AssignResponse, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, proto.CloneOf(req))
	p.mu.Unlock()
	if p.Block {
		<-ctx.Done()
		return nil, status.FromContextError(ctx.Err()).Err()
	}
	resp, err := p.Next.Assign(ctx, req)
	if err != nil || p.Rewrite == nil {
		return resp, err
	}
	return p.Rewrite(resp)
}

// Requests are the requests received so far.
func (p *Proxy) Requests() []*assigndv1.AssignRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*assigndv1.AssignRequest(nil), p.reqs...)
}

// ServeRecorded runs a real assignd behind a [Proxy] that records every
// request, and returns a client of the real one, the proxy and a client of
// the proxy.
func ServeRecorded(t testing.TB) (real *client.Client, p *Proxy, proxied *client.Client) {
	t.Helper()
	real = NewClient(t, ServeAssignd(t))
	p = &Proxy{Next: real}
	return real, p, NewClient(t, ServeFake(t, p))
}

// OnlyRequest checks that a shim served one balance, from assignd (its
// stats), with one request through p, and returns that request.
func OnlyRequest(t testing.TB, stats client.BalanceStats, p *Proxy) *assigndv1.AssignRequest {
	t.Helper()
	if stats != (client.BalanceStats{Served: 1}) {
		t.Fatalf("stats %+v, want one balance served by assignd", stats)
	}
	reqs := p.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	return reqs[0]
}

// SkipLarge skips a test of a group large enough to take seconds of CPU
// under -short, and under the race detector, which makes it take minutes
// and checks nothing such a test adds. scripts/test.sh runs these tests
// without it (names starting with TestLarge or TestFallbackIsBounded).
func SkipLarge(t testing.TB) {
	t.Helper()
	switch {
	case testing.Short():
		t.Skip("a large group: seconds of CPU")
	case RaceDetector:
		t.Skip("a large group: minutes under the race detector; scripts/test.sh runs it without")
	}
}

// CheckFallbackLog checks the one line an adapter logged for a fallback,
// and the check its report gave: at ERROR naming the setting to check when
// the fallback means a setting is wrong (check is a word of it), at WARN
// and without a check otherwise (check is "").
func CheckFallbackLog(t testing.TB, logs, reported, check string) {
	t.Helper()
	level := "level=WARN"
	if check != "" {
		level = "level=ERROR"
	}
	switch {
	case strings.Count(logs, "\n") != 1 || !strings.Contains(logs, level):
		t.Errorf("logged\n%s\nwant one line at %s", logs, level)
	case check == "" && (reported != "" || strings.Contains(logs, "check=")):
		t.Errorf("a passing cause names a setting to check: %q", reported)
	case check != "" && (!strings.Contains(reported, check) || !strings.Contains(logs, check)):
		t.Errorf("report check %q, log\n%s\nwant both to name %s", reported, logs, check)
	}
}
