package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"google.golang.org/grpc"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/server/rpcerr"
)

// rpcState is one RPC's, from the moment gRPC sees its headers to the
// moment its status is written: shared by the stats handler [rpcStats],
// the interceptors and the handler.
type rpcState struct {
	mu sync.Mutex
	// begin is when gRPC saw the call's headers.
	begin time.Time
	// reqBytes is the request message's size, as gRPC received it.
	reqBytes int
	// handled: an interceptor saw the call, so gRPC did not refuse it.
	handled bool
	// release frees what the handler admitted; it runs once the
	// response is written, so that the memory the response's encoding
	// takes stays within the budget.
	release func()
	// after runs once the response is written, after release: work that
	// must not delay the response (recording the call's Decision).
	after func()
}

type rpcStateKey struct{}

func rpcStateFrom(ctx context.Context) *rpcState {
	st, _ := ctx.Value(rpcStateKey{}).(*rpcState)
	return st
}

// requestBytes is the size of the request as received, or 0 when unknown
// (a handler called without the stats handler, as in unit tests).
func requestBytes(ctx context.Context) int {
	if st := rpcStateFrom(ctx); st != nil {
		st.mu.Lock()
		defer st.mu.Unlock()
		return st.reqBytes
	}
	return 0
}

// releaseAfterResponse arranges for release to run once the call's
// response is written, or now-ish (when the handler returns, through the
// returned function) when the call has no rpcState.
func releaseAfterResponse(ctx context.Context, release func()) (onReturn func()) {
	st := rpcStateFrom(ctx)
	if st == nil {
		return release
	}
	st.mu.Lock()
	st.release = release
	st.mu.Unlock()
	return func() {}
}

// afterResponse arranges for f to run once the call's response is
// written, or now when the call has no rpcState (a handler called without
// the stats handler, as in unit tests).
func afterResponse(ctx context.Context, f func()) {
	st := rpcStateFrom(ctx)
	if st == nil {
		f()
		return
	}
	st.mu.Lock()
	st.after = f
	st.mu.Unlock()
}

// rpcStats is a stats handler: it gives each RPC its rpcState, notes the
// request's size, releases the call's admission after the response, and
// reports the calls gRPC refuses before any interceptor runs (a request
// over the receive limit, one that is not valid protobuf) with a log line
// "refused call" and the counter assignd.rpc.refused, which no
// interceptor could see.
type rpcStats struct {
	logger  *slog.Logger
	refused metric.Int64Counter
	// intake is the time from a call's headers to its first interceptor:
	// receiving and decoding the request, and waiting for a goroutine.
	intake metric.Float64Histogram
	// methods caches each method's attribute option (method name to
	// []metric.RecordOption, the variadic argument of Record built once),
	// so that recording allocates nothing.
	methods sync.Map
}

func newRPCStats(logger *slog.Logger, mp metric.MeterProvider) (*rpcStats, error) {
	m := mp.Meter(meterName)
	c, err := m.Int64Counter("assignd.rpc.refused", metric.WithUnit("{call}"),
		metric.WithDescription("Calls gRPC refused before assignd's handler: request over the receive limit, not valid protobuf; by method and code."))
	if err != nil {
		return nil, err
	}
	intake, err := m.Float64Histogram("assignd.rpc.intake.duration", metric.WithUnit("s"),
		metric.WithDescription("Time from a call's headers to assignd's first interceptor (receiving and decoding the request, waiting for a goroutine), by method: what a leader waits before the handler's own time starts."),
		metric.WithExplicitBucketBoundaries(0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5))
	if err != nil {
		return nil, err
	}
	return &rpcStats{logger: logger, refused: c, intake: intake}, nil
}

func (h *rpcStats) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	return context.WithValue(ctx, rpcStateKey{}, &rpcState{})
}

func (h *rpcStats) HandleRPC(ctx context.Context, s stats.RPCStats) {
	// The headers and trailers, and the response's payload, are of no
	// interest: they are left before the context is searched for the
	// state.
	switch s := s.(type) {
	case *stats.Begin:
		if st := rpcStateFrom(ctx); st != nil {
			st.mu.Lock()
			st.begin = s.BeginTime
			st.mu.Unlock()
		}
	case *stats.InPayload:
		if st := rpcStateFrom(ctx); st != nil {
			st.mu.Lock()
			st.reqBytes = s.Length
			st.mu.Unlock()
		}
	case *stats.End:
		st := rpcStateFrom(ctx)
		if st == nil {
			return
		}
		st.mu.Lock()
		release, after, handled := st.release, st.after, st.handled
		st.release, st.after = nil, nil
		st.mu.Unlock()
		if release != nil {
			release()
		}
		if after != nil {
			after()
		}
		if s.Error != nil && !handled {
			h.report(ctx, s)
		}
	}
}

// report logs and counts one refused call. The method name is the one
// gRPC routed, so one of the registered methods.
func (h *rpcStats) report(ctx context.Context, end *stats.End) {
	method, _ := grpc.Method(ctx)
	code := status.Code(end.Error)
	h.refused.Add(ctx, 1, metric.WithAttributes(attribute.String("method", method), attribute.String("code", code.String())))
	attrs := []slog.Attr{slog.String("grpc.method", method), slog.String("grpc.code", code.String()),
		slog.String("grpc.error", rpcerr.ClipMessage(status.Convert(end.Error).Message())),
		slog.String("grpc.duration", end.EndTime.Sub(end.BeginTime).Round(time.Microsecond).String())}
	if addr, ok := peerAddress(ctx); ok {
		attrs = append(attrs, slog.String("peer.address", addr))
	}
	h.logger.LogAttrs(ctx, slog.LevelWarn, "refused call", attrs...)
}

// connPeerKey holds, in a connection's context, its peer's address as
// text: the call log names the peer of every call, and formatting the
// address once per connection spares every call the formatting and its
// allocations.
type connPeerKey struct{}

// TagConn notes the connection's peer address as text.
func (*rpcStats) TagConn(ctx context.Context, info *stats.ConnTagInfo) context.Context {
	if info.RemoteAddr == nil {
		return ctx
	}
	return context.WithValue(ctx, connPeerKey{}, info.RemoteAddr.String())
}

func (*rpcStats) HandleConn(context.Context, stats.ConnStats) {}

// peerAddress is the address of the call's peer as text, as its
// connection noted it, or formatted now when the connection did not (a
// context built without the stats handler, as in unit tests).
func peerAddress(ctx context.Context) (string, bool) {
	if addr, ok := ctx.Value(connPeerKey{}).(string); ok {
		return addr, true
	}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		return p.Addr.String(), true
	}
	return "", false
}

// handled is the first interceptor of both chains: the call got past
// gRPC's own checks. It records the call's intake time.
func (h *rpcStats) handled(ctx context.Context, method string) {
	st := rpcStateFrom(ctx)
	if st == nil {
		return
	}
	st.mu.Lock()
	st.handled = true
	begin := st.begin
	st.mu.Unlock()
	if begin.IsZero() {
		return
	}
	opts, ok := h.methods.Load(method)
	if !ok {
		// Only registered methods reach an interceptor: the cache is as
		// large as the services.
		opts, _ = h.methods.LoadOrStore(method, []metric.RecordOption{
			metric.WithAttributeSet(attribute.NewSet(attribute.String("method", method))),
		})
	}
	h.intake.Record(ctx, time.Since(begin).Seconds(), opts.([]metric.RecordOption)...)
}

func (h *rpcStats) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	h.handled(ctx, info.FullMethod)
	return handler(ctx, req)
}

func (h *rpcStats) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	h.handled(ss.Context(), info.FullMethod)
	return handler(srv, ss)
}
