package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"
	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/assignd/assignd/server/rpcerr"
)

// callLog writes one line per finished call, never payloads:
//
//	msg "finished call", level by code (logging.DefaultServerCodeToLevel)
//	grpc.service, grpc.method, peer.address, grpc.start_time,
//	grpc.request.deadline (when set), grpc.code, grpc.error (on failure),
//	grpc.duration, and for Assign the call report's domain fields:
//	group, assignor, protocol, policy, members, partitions, moved,
//	revoked, pending, followup, warnings, and moved_by: the partitions
//	that changed owner, were withheld or held back, by reason (a group,
//	e.g. moved_by.balance=3; absent when nothing moved)
//
// It is a reporter of go-grpc-middleware's interceptor core rather than
// its logging package, whose field handling (boxing every field into an
// []any, copying and deduplicating the list several times, formatting the
// start time) cost more per call than the rest of the interceptor chain.
// Here nothing is built unless the handler takes the line, and then the
// attributes go straight into one slog.Record. The two every line starts
// with, service and method, are given to the handler once per method
// ([slog.Handler.WithAttrs]), which formats them once: each string a
// line holds is scanned for quoting and copied, and these two were a
// tenth of a line.
type callLog struct {
	h slog.Handler
	// methods caches h with a method's service and method attributes
	// (methodKey → slog.Handler). Only registered methods reach an
	// interceptor: the cache is as large as the services.
	methods sync.Map
}

type methodKey struct{ service, method string }

func newCallLog(l *slog.Logger) *callLog { return &callLog{h: l.Handler()} }

// handler is h with the attributes of service and method.
func (c *callLog) handler(service, method string) slog.Handler {
	k := methodKey{service, method}
	if h, ok := c.methods.Load(k); ok {
		return h.(slog.Handler)
	}
	h, _ := c.methods.LoadOrStore(k, c.h.WithAttrs([]slog.Attr{
		slog.String(logging.ServiceFieldKey, service), slog.String(logging.MethodFieldKey, method),
	}))
	return h.(slog.Handler)
}

func (c *callLog) unary() grpc.UnaryServerInterceptor {
	return interceptors.UnaryServerInterceptor(interceptors.CommonReportableFunc(c.reporter))
}

func (c *callLog) stream() grpc.StreamServerInterceptor {
	return interceptors.StreamServerInterceptor(interceptors.CommonReportableFunc(c.reporter))
}

func (c *callLog) reporter(ctx context.Context, meta interceptors.CallMeta) (interceptors.Reporter, context.Context) {
	return &callLogReporter{log: c, ctx: ctx, service: meta.Service, method: meta.Method, start: time.Now()}, ctx
}

// callLogReporter is one call's.
type callLogReporter struct {
	log             *callLog
	ctx             context.Context
	service, method string
	start           time.Time
}

func (*callLogReporter) PostMsgSend(any, error, time.Duration)    {}
func (*callLogReporter) PostMsgReceive(any, error, time.Duration) {}

func (r *callLogReporter) PostCall(err error, took time.Duration) {
	if errors.Is(err, io.EOF) {
		err = nil
	}
	code := status.Code(err)
	level := slog.Level(logging.DefaultServerCodeToLevel(code))
	if !r.log.h.Enabled(r.ctx, level) {
		return
	}
	// The attributes are collected on the stack and added at once, so
	// that the record grows its storage once.
	var buf [24]slog.Attr
	attrs := buf[:0]
	if addr, ok := peerAddress(r.ctx); ok {
		attrs = append(attrs, slog.String("peer.address", addr))
	}
	attrs = append(attrs, slog.Time("grpc.start_time", r.start))
	if d, ok := r.ctx.Deadline(); ok {
		attrs = append(attrs, slog.Time("grpc.request.deadline", d))
	}
	attrs = append(attrs, slog.String("grpc.code", code.String()))
	if err != nil {
		// Messages quote what the caller sent clipped already; the whole
		// is bounded too.
		attrs = append(attrs, slog.String("grpc.error", rpcerr.ClipMessage(err.Error())))
	}
	attrs = append(attrs, slog.String("grpc.duration", took.String()))
	if rep, ok := r.ctx.Value(reportKey{}).(*callReport); ok {
		attrs = rep.appendAttrs(attrs)
	}
	// pc 0: the caller's frame would only ever name this function, and
	// finding it costs a stack walk per call.
	rec := slog.NewRecord(time.Now(), level, "finished call", 0)
	rec.AddAttrs(attrs...)
	_ = r.log.handler(r.service, r.method).Handle(r.ctx, rec)
}

// logged excludes health checks and reflection from the call log: probes
// run every few seconds and would drown the lines that matter.
func logged(_ context.Context, c interceptors.CallMeta) bool {
	return c.Service != healthpb.Health_ServiceDesc.ServiceName &&
		!strings.HasPrefix(c.Service, "grpc.reflection.")
}
