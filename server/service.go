package server

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/replay"
	"github.com/assignd/assignd/server/request"
	"github.com/assignd/assignd/server/rollout"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// runFunc runs the engine; opts include assign.WithContext(ctx). Tests
// substitute it to inject faults and slow runs.
type runFunc = replay.RunFunc

func runEngine(_ context.Context, a assign.Assignor, g *assign.Group, opts ...assign.Option) (*assign.Result, error) {
	return assign.Run(a, g, opts...)
}

// service implements assigndv1.AssignmentServiceServer.
type service struct {
	assigndv1.UnimplementedAssignmentServiceServer

	sel           selection.Selector
	explainer     selection.Explainer
	logger        *slog.Logger
	admission     *admission
	maxPartitions int64
	// stopping ends, with cause rpcerr.ErrShuttingDown, when the server's grace
	// period is over; every computation stops with it.
	stopping context.Context
	run      runFunc
	metrics  *domainMetrics
	// history receives a Decision per answered call; nil: none is kept.
	history *history.Store
	// received holds large requests' bytes for their Decisions (with a
	// history only).
	received *receivedInputs
	// load gives partition weights to rules that read them from Kafka;
	// loadFallbacks counts the calls planned by counts instead.
	load          LoadSource
	loadClusters  LoadClusters
	loadFallbacks metric.Int64Counter
	// rollouts reports staged rollouts in ExplainPolicy; nil: none.
	rollouts rollout.Statuser
}

// Assign computes one group's assignment. Steps, each of which can reject
// the request: the protocol name and rebalance protocol, the size limits
// and the memory estimate, the Selector's choice, admission (a CPU slot
// and the estimate within the memory budget), decoding the members, and
// the engine, which validates and stops when the call ends. Every error
// goes through toStatus.
func (s *service) Assign(ctx context.Context, req *assigndv1.AssignRequest) (*assigndv1.AssignResponse, error) {
	return withStatus(ctx, req, s.assign)
}

// withStatus runs an RPC's body and maps its error with rpcerr.ToStatus,
// so that every error a client sees went through that one mapping.
func withStatus[Q, R any](ctx context.Context, req Q, body func(context.Context, Q) (*R, error)) (*R, error) {
	resp, err := body(ctx, req)
	if err != nil {
		return nil, rpcerr.ToStatus(err)
	}
	return resp, nil
}

func (s *service) assign(ctx context.Context, req *assigndv1.AssignRequest) (*assigndv1.AssignResponse, error) {
	rep := reportFrom(ctx).begin(req.GetGroupId(), len(req.GetMembers()), "")

	h, err := request.ReadHeader(req, s.maxPartitions)
	if err != nil {
		return nil, err
	}
	caller := callerFromContext(ctx)
	sel, err := s.selectAssignor(ctx, req.GetGroupId(), req.GetProtocolName(), h.Protocol, caller)
	if err != nil {
		return nil, err
	}
	proto := h.Protocol
	if proto == assign.ProtocolUnspecified {
		// What the group's clients run, as the policy knows it; still
		// unspecified, the engine runs the assignor's default.
		proto = sel.Protocol
	}
	rep.assignor, rep.policy, rep.binding = sel.Assignor, sel.Policy, sel.Binding
	rep.rolloutStep, rep.rolloutStarted = sel.RolloutStep, sel.RolloutStarted
	rep.protocol = proto.String()
	if proto == assign.ProtocolUnspecified {
		rep.protocol = sel.Assignor.Protocols()[0].String()
	}

	estimate := request.EstimateBytes(req, requestBytes(ctx))
	received := s.received.take(req)
	defer func() {
		if received != nil { // not handed to the Decision
			received.Free()
		}
	}()
	if received != nil && s.admission.wouldWait(estimate) {
		// In line, the bytes would be memory that no admitted call's
		// estimate counts: the Decision marshals the request again.
		received.Free()
		received = nil
	}
	release, err := s.admission.admit(ctx, estimate)
	if err != nil {
		return nil, err
	}
	defer releaseAfterResponse(ctx, release)()
	ctx, stop := s.stopOnShutdown(ctx)
	defer stop()

	in, err := request.Decode(req, proto)
	if err != nil {
		return nil, err
	}
	g := in.Group
	fromKafka, loadSnapshot, loadWarning := s.kafkaWeights(ctx, sel, g)
	if ctx.Err() != nil {
		return nil, rpcerr.CallEnded(ctx)
	}
	opts := append(slices.Clip(sel.Options), assign.WithContext(ctx))
	// The engine lists what the caller asked for, and what a Decision
	// records when the server keeps a history.
	detail := h.MoveDetail
	if s.history != nil {
		detail = max(detail, decisionMoves)
	}
	if detail > 0 {
		opts = append(opts, assign.WithMoveDetail(detail))
	}
	if req.GetTargetAssignment() {
		// A KIP-848 broker reconciles moves itself (docs/kip848-plugin.md).
		opts = append(opts, assign.WithTarget(true))
	}
	start := time.Now()
	res, err := s.run(ctx, sel.Assignor, g, opts...)
	took := time.Since(start)
	if err != nil {
		return nil, in.EngineError(rpcerr.Stopped(ctx, err))
	}
	if loadWarning != "" {
		res.Warnings = append(res.Warnings, loadWarning)
	}
	rep.setResult(res)
	rep.protocol = res.Protocol.String()
	if sel.Observe != nil {
		sel.Observe(ctx, g, res, took)
	}
	if ctx.Err() != nil {
		return nil, rpcerr.CallEnded(ctx)
	}
	if s.history != nil {
		// References only: the record is built once the response is
		// written (reportInterceptor), off the call's latency.
		rep.noteDecision(ctx, req, received, g, res, took, caller)
		received = nil
	}
	resp := response(res, sel.Policy, in.Versions, h, req.GetWeightUnit(), fromKafka)
	resp.TargetAssignment = req.GetTargetAssignment()
	resp.LoadSnapshot = loadSnapshot
	rep.noteLoad(resp)
	return resp, nil
}

// stopOnShutdown returns ctx, canceled with cause rpcerr.ErrShuttingDown when the
// server's grace period ends, and the function that detaches it.
func (s *service) stopOnShutdown(ctx context.Context) (context.Context, func()) {
	if s.stopping == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	detach := context.AfterFunc(s.stopping, func() { cancel(rpcerr.ErrShuttingDown) })
	return ctx, func() {
		detach()
		cancel(nil)
	}
}

// ListAssignors lists every runnable assignor version.
func (s *service) ListAssignors(context.Context, *assigndv1.ListAssignorsRequest) (*assigndv1.ListAssignorsResponse, error) {
	as := assign.Assignors()
	out := &assigndv1.ListAssignorsResponse{Assignors: make([]*assigndv1.AssignorInfo, len(as))}
	for i, a := range as {
		out.Assignors[i] = assignorInfo(a)
	}
	out.ProtocolNames = s.protocolNames()
	return out, nil
}
