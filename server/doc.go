// Package server is the assignd gRPC service: it turns the
// assignd.v1.AssignmentService API ([assigndv1]) into calls of the pure
// assignment engine ([assign]) and back, and wraps them in what an operable
// service needs: health checking, reflection, structured call logs, panic
// recovery, OpenTelemetry metrics and traces, a bound on concurrent work,
// request size limits and graceful shutdown. [New] builds a [Server];
// required things are its parameters, the rest are [Option]s with
// documented defaults.
//
// # Choosing what runs
//
// The service never picks an assignor itself. For every Assign call it asks
// a [selection.Selector] which assignor runs for the group, protocol name and caller,
// with which options, and under which rebalance protocol when the request
// leaves it open. [DefaultSelector] maps the standard protocol names to the
// standard assignors ([assign.Standards]); the policy layer (server/policy)
// is a selection.Selector too. An [selection.Explainer] answers the ExplainPolicy RPC, the
// read-only twin of Select, so that operators can see what a group gets
// and why; server/policy implements it.
//
// # The same bytes as the client shims
//
// Raw ConsumerProtocolSubscription bytes are decoded, and every assignment
// encoded at the member's own subscription version, by the codec the client
// shims' local fallback uses too ([leader.Decode], [leader.Encode]), so that
// the service and a fallback answer a leader with the same bytes.
//
// # Errors
//
// One mapping turns domain errors into gRPC status codes, with
// google.rpc.BadRequest and google.rpc.ErrorInfo details (domain
// [assigndv1.ErrorDomain], reasons from [assigndv1.ErrorReason]), so that
// leaders in any language can branch on the cause. Messages name the
// member or field at fault and never leak internals.
//
// # Observability
//
// Each call produces one report that feeds both the one-line call log and
// the domain metrics, both built to cost little per call. [NewTelemetry]
// builds the Prometheus-backed meter provider and the optional OTLP tracer
// provider that cmd/assignd wires in.
package server
