package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/selector"
	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/replay"
	"github.com/assignd/assignd/server/rollout"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// Server is the assignd gRPC server: the AssignmentService, the
// grpc.health.v1 health service (one status per service, plus "" for the
// whole server) and server reflection, behind the interceptor chain
// report → logging → recovery and the otelgrpc stats handler. Without
// WithExplainer, ExplainPolicy answers UNIMPLEMENTED.
type Server struct {
	grpc   *grpc.Server
	health *health.Server
	logger *slog.Logger
	ready  atomic.Bool
	// stopCalls ends the context every computation runs under, with
	// cause rpcerr.ErrShuttingDown.
	stopCalls  context.CancelCauseFunc
	osReturner *osReturner
	history    *history.Store
	replay     *replay.Service
	// explainer, when set, tells the console what the policy does now.
	explainer selection.Explainer
	// rollouts, when set, shows the staged rollouts on the console.
	rollouts rollout.Statuser
}

// New builds a Server. sel chooses the assignor of every Assign call (use
// DefaultSelector() without a policy); logger receives one line per call
// and the server's own events. Both are required.
func New(sel selection.Selector, logger *slog.Logger, opts ...Option) (*Server, error) {
	if sel == nil || logger == nil {
		return nil, errors.New("server: New needs a selection.Selector and a logger")
	}
	cfg := defaultConfig()
	for _, o := range opts {
		o.apply(&cfg)
	}
	if cfg.memoryBudget == 0 {
		var reserved int64
		if cfg.history != nil {
			reserved = cfg.history.MaxBytes()
		}
		cfg.memoryBudget = DefaultMemoryBudget(reserved)
	}
	if cfg.maxConcurrent < 1 || cfg.maxRecvBytes < 1 || cfg.maxPartitions < 1 || cfg.maxQueueWait < 0 ||
		cfg.queueTarget < 0 || cfg.memoryBudget < MinMemoryBudget || cfg.memoryReturn < 0 {
		return nil, fmt.Errorf("server: limits must be positive (concurrent assigns %d, recv bytes %d, partitions %d, queue wait %s, queue target %s, memory return %s) "+
			"and the memory budget at least %d bytes (%d)",
			cfg.maxConcurrent, cfg.maxRecvBytes, cfg.maxPartitions, cfg.maxQueueWait, cfg.queueTarget, cfg.memoryReturn, MinMemoryBudget, cfg.memoryBudget)
	}
	if cfg.meters == nil {
		cfg.meters = metricnoop.NewMeterProvider()
	}
	if cfg.tracers == nil {
		cfg.tracers = tracenoop.NewTracerProvider()
	}
	adm := newAdmission(cfg.maxConcurrent, cfg.memoryBudget, cfg.maxQueueWait, cfg.queueTarget)
	metrics, err := newDomainMetrics(cfg.meters, adm.busy, adm.admittedBytes)
	if err != nil {
		return nil, err
	}
	taskMetrics, err := newTaskMetrics(cfg.meters)
	if err != nil {
		return nil, err
	}
	shareMetrics, err := newShareMetrics(cfg.meters)
	if err != nil {
		return nil, err
	}
	if err := registerAdmissionMetrics(cfg.meters, adm); err != nil {
		return nil, err
	}
	rpcs, err := newRPCStats(logger, cfg.meters)
	if err != nil {
		return nil, fmt.Errorf("server: creating metrics: %w", err)
	}

	s := &Server{health: health.NewServer(), logger: logger, history: cfg.history, explainer: cfg.explainer, rollouts: cfg.rollouts}
	if cfg.memoryReturn > 0 {
		s.osReturner = newOSReturner(cfg.memoryReturn)
		adm.largeStart, adm.largeDone = s.osReturner.begin, s.osReturner.end
	}
	stopping, stopCalls := context.WithCancelCause(context.Background())
	s.stopCalls = stopCalls
	svc := &service{
		sel: sel, explainer: cfg.explainer, logger: logger, admission: adm,
		maxPartitions: cfg.maxPartitions, stopping: stopping, run: cfg.run, metrics: metrics, history: cfg.history,
		load: cfg.load, rollouts: cfg.rollouts, loadClusters: cfg.loadClusters,
	}
	if cfg.history != nil {
		svc.received = new(receivedInputs)
	}
	if svc.loadFallbacks, err = newLoadFallbacks(cfg.meters); err != nil {
		return nil, fmt.Errorf("server: creating metrics: %w", err)
	}

	callLog := newCallLog(logger)
	serverOpts := []grpc.ServerOption{
		grpc.StatsHandler(otelgrpc.NewServerHandler(
			otelgrpc.WithMeterProvider(cfg.meters),
			otelgrpc.WithTracerProvider(cfg.tracers),
			otelgrpc.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
		)),
		grpc.StatsHandler(rpcs),
		grpc.MaxRecvMsgSize(cfg.maxRecvBytes),
		// A goroutine per call starts with a small stack and grows it
		// through the interceptors, the codec and the engine on every
		// call (copystack was 8% of the CPU of a small Assign); workers
		// keep their grown stacks. When all are busy grpc starts a
		// goroutine as usual, so a call waiting for a slot blocks nobody.
		// Calls in intake and in line hold their workers too, so there
		// are several per slot: a storm's calls still find one free.
		grpc.NumStreamWorkers(uint32(streamWorkersPerCore * runtime.GOMAXPROCS(0))),
		grpc.InTapHandle(refuseEarly(adm, metrics)),
		grpc.ChainUnaryInterceptor(
			rpcs.unary,
			reportInterceptor(metrics, map[string]*groupTypeMetrics{
				assigndv1.AssignmentService_AssignTasks_FullMethodName: taskMetrics,
				assigndv1.AssignmentService_AssignShare_FullMethodName: shareMetrics,
			}, cfg.history, logger),
			selector.UnaryServerInterceptor(callLog.unary(), selector.MatchFunc(logged)),
			recovery.UnaryServerInterceptor(recovery.WithRecoveryHandlerContext(s.recovered)),
		),
		grpc.ChainStreamInterceptor(
			rpcs.stream,
			selector.StreamServerInterceptor(callLog.stream(), selector.MatchFunc(logged)),
			recovery.StreamServerInterceptor(recovery.WithRecoveryHandlerContext(s.recovered)),
		),
	}
	if cfg.tls != nil {
		serverOpts = append(serverOpts, grpc.Creds(credentials.NewTLS(cfg.tls)))
	}
	serverOpts = append(serverOpts, grpc.ForceServerCodecV2(serverCodec{encoding.GetCodecV2(grpcproto.Name), s.osReturner, svc.received}))
	s.grpc = grpc.NewServer(append(serverOpts, cfg.grpcOptions...)...)
	assigndv1.RegisterAssignmentServiceServer(s.grpc, svc)
	assigndv1.RegisterGroupHistoryServiceServer(s.grpc, history.NewService(cfg.history))
	s.replay = replay.New(replay.Config{
		Store: cfg.history, Explainer: cfg.explainer, Parse: cfg.policyParser, Run: cfg.run,
		MemoryBudget: cfg.memoryBudget, Stop: svc.stopOnShutdown,
	})
	assigndv1.RegisterReplayServiceServer(s.grpc, s.replay)
	assigndv1.RegisterRolloutServiceServer(s.grpc, rollout.NewService(cfg.rollouts))
	if cfg.history != nil {
		if err := history.RegisterMetrics(cfg.meters, cfg.history); err != nil {
			return nil, fmt.Errorf("server: creating metrics: %w", err)
		}
	}
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)
	// Until Serve runs, health checks answer NOT_SERVING.
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_NOT_SERVING)
	return s, nil
}

// RegisterService adds another gRPC service (e.g. a policy admin service);
// call it before Serve. It makes Server a grpc.ServiceRegistrar.
func (s *Server) RegisterService(desc *grpc.ServiceDesc, impl any) {
	s.grpc.RegisterService(desc, impl)
}

// Serve marks every registered service SERVING and serves lis until
// Shutdown. Like grpc.Server.Serve it returns nil after a graceful stop.
func (s *Server) Serve(lis net.Listener) error {
	for name := range s.grpc.GetServiceInfo() {
		s.health.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	s.ready.Store(true)
	err := s.grpc.Serve(lis)
	s.ready.Store(false)
	if errors.Is(err, grpc.ErrServerStopped) {
		return nil
	}
	return err
}

// Ready reports whether the server is serving and not shutting down.
func (s *Server) Ready() bool { return s.ready.Load() }

// Shutdown stops the server gracefully: health checks answer NOT_SERVING
// from now on (so load balancers and clients that health-check move away),
// no new calls are accepted and calls in flight finish. When ctx ends
// first, the computations in flight are stopped and their calls answer
// UNAVAILABLE ("server shutting down; retry on another instance"); after
// at most stopGrace more, every connection is closed (calls still running
// then fail with UNAVAILABLE on the client side), and Shutdown returns
// ctx's error, so that the process can exit.
func (s *Server) Shutdown(ctx context.Context) error {
	s.ready.Store(false)
	s.health.Shutdown()
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	defer func() {
		if s.osReturner != nil {
			s.osReturner.stop()
		}
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
	}
	s.logger.WarnContext(ctx, "graceful shutdown timed out; stopping calls in flight")
	s.stopCalls(rpcerr.ErrShuttingDown)
	t := time.NewTimer(stopGrace)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		s.grpc.Stop()
	}
	return ctx.Err()
}

// stopGrace is how long Shutdown waits, once the grace period is over and
// the computations are told to stop, for their calls to answer before
// closing the connections. An engine run stops well within it.
const stopGrace = 250 * time.Millisecond

// streamWorkersPerCore is gRPC's stream workers per GOMAXPROCS: enough
// for the calls computing, in intake and at the head of the line of a
// busy server, each worker a goroutine and its stack (tens of KiB).
const streamWorkersPerCore = 16

// MinMemoryBudget is the smallest WithMemoryBudget: 16 MiB, for a few
// small calls beside the reserve.
const MinMemoryBudget = 16 << 20

// recovered turns a panic in a handler into INTERNAL. The panic and its
// stack go to the log, never to the client, and the server keeps serving.
func (s *Server) recovered(ctx context.Context, p any) error {
	s.logger.ErrorContext(ctx, "recovered from panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
	return rpcerr.ToStatus(rpcerr.ErrInternal)
}

// reportInterceptor gives each Assign call a callReport and records the
// domain metrics once the call, recovery included, has finished.
//
// With a history, it also records the call's Decision once the response
// is written: building it (and the input's digest) never delays the
// response, and Store.Record does constant work under its lock.
func reportInterceptor(m *domainMetrics, byMethod map[string]*groupTypeMetrics, h *history.Store, logger *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if tm := byMethod[info.FullMethod]; tm != nil {
			// A group type's own RPC (AssignTasks, AssignShare): the call
			// log's fields, its metrics and its Decision.
			ctx, rep := withReport(ctx)
			start := time.Now()
			resp, err := handler(ctx, req)
			took := time.Since(start)
			tm.record(ctx, rep, status.Code(err), err, took)
			if err == nil && (rep.taskDecision != nil || rep.shareDecision != nil) && h != nil {
				afterResponse(ctx, func() { recordDecision(ctx, h, rep, took, logger) })
			}
			return resp, err
		}
		if info.FullMethod != assigndv1.AssignmentService_Assign_FullMethodName {
			return handler(ctx, req)
		}
		ctx, rep := withReport(ctx)
		start := time.Now()
		resp, err := handler(ctx, req)
		took := time.Since(start)
		// ctx may be canceled by now; the SDK records regardless and only
		// reads it for the trace exemplar.
		m.record(ctx, rep, status.Code(err), err, took)
		if err == nil && rep.decision != nil && h != nil {
			afterResponse(ctx, func() { recordDecision(ctx, h, rep, took, logger) })
		}
		return resp, err
	}
}

// recordDecision builds the call's Decision and records it. It runs after
// the response, outside the handler's recovery: a bug here is logged and
// the record dropped, never the process.
func recordDecision(ctx context.Context, h *history.Store, rep *callReport, took time.Duration, logger *slog.Logger) {
	defer func() {
		if p := recover(); p != nil {
			logger.ErrorContext(ctx, "recording the decision failed; dropped", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		}
	}()
	switch {
	case rep.taskDecision != nil:
		h.Record(rep.buildTaskDecision(took))
		return
	case rep.shareDecision != nil:
		h.Record(rep.buildShareDecision(took))
		return
	}
	d := rep.buildDecision(took)
	h.RecordInput(d, rep.decision.marshaled())
}
