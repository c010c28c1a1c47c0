// Package server is the assignd gRPC service: it converts the
// assignd.v1.AssignmentService API into calls of the pure assignment engine
// (package assign) and back, and wraps them in what an operable service
// needs: health checking, reflection, structured call logs, panic recovery,
// OpenTelemetry metrics and traces, a bound on concurrent work, request size
// limits and graceful shutdown.
//
// The pieces, one file each:
//
//   - New and Server (server.go): the grpc.Server with its interceptor chain
//     (report → logging → recovery → handler) and the otelgrpc stats handler;
//   - the Selector seam (selector.go): which assignor runs for a (group,
//     protocol name, caller), and under which rebalance protocol when the
//     request leaves it open; the policy layer (server/policy) plugs in
//     here, and DefaultSelector maps the four standard names to the
//     standard assignors;
//   - the Explainer seam (explainer.go, explain.go): the ExplainPolicy RPC,
//     answered by whatever explains the Selector's policy (cmd/assignd
//     adapts server/policy to it, since this package cannot import it);
//   - request and response conversion (request.go, response.go): raw
//     ConsumerProtocolSubscription bytes are decoded, and every assignment
//     encoded at the member's own subscription version, by assign/leader,
//     the codec the client shim's local fallback uses too, so that both
//     answer a leader with the same bytes;
//   - errors.go: the one place that maps domain errors to gRPC status codes
//     with google.rpc.BadRequest and google.rpc.ErrorInfo details (domain
//     ErrorDomain, reasons from assigndv1.ErrorReason);
//   - the call report (report.go) that feeds both the one-line call log
//     (logging.go) and the domain metrics (metrics.go), both built to cost
//     little per call;
//   - telemetry.go: the Prometheus-backed meter provider and the optional
//     OTLP tracer provider that cmd/assignd wires in.
package server
