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
//     protocol name, caller); the policy layer plugs in here, and
//     DefaultSelector maps the four standard names to the standard assignors;
//   - request and response conversion (request.go, response.go): raw
//     ConsumerProtocolSubscription bytes are decoded with assign/wire and
//     every assignment is encoded at the member's own subscription version;
//   - errors.go: the one place that maps domain errors to gRPC status codes
//     with google.rpc.BadRequest and google.rpc.ErrorInfo details (domain
//     ErrorDomain, reasons from assigndv1.ErrorReason);
//   - the call report (report.go) that feeds both the one-line call log and
//     the domain metrics (metrics.go);
//   - telemetry.go: the Prometheus-backed meter provider and the optional
//     OTLP tracer provider that cmd/assignd wires in.
package server
