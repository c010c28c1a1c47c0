// Package server is the assignd gRPC server: the AssignmentService
// (Assign, ListAssignors, ExplainPolicy), which turns the API
// ([assigndv1]) into calls of the pure assignment engine ([assign]) and
// back, and the [Server] that serves it beside the other services, each
// from its own package: the group history ([history.Service]), the replays
// ([replay.Service]) and the staged rollouts ([rollout.Service]). The
// Server wraps them in what an operable service needs: health checking,
// reflection, structured call logs, panic recovery, OpenTelemetry metrics
// and traces, a bound on concurrent work and memory, request size limits
// and graceful shutdown. [New] builds it; required things are its
// parameters, the rest are [Option]s with documented defaults.
//
// # Choosing what runs
//
// The service never picks an assignor itself. For every Assign call it asks
// a [selection.Selector] which assignor runs for the group, protocol name
// and caller, with which options, and under which rebalance protocol when
// the request leaves it open ([selection.Default] without a policy;
// server/policy with one). ExplainPolicy asks the matching
// [selection.Explainer].
//
// # One decoder, one error mapping
//
// A request is read by [request.ReadHeader] and [request.Decode], the
// decoder every replay uses too, so that a replay plans what the call did;
// raw ConsumerProtocolSubscription bytes are decoded, and every assignment
// encoded at the member's own subscription version, by the codec the
// client shims' local fallback uses ([leader.Decode], [leader.Encode]), so
// that the service and a fallback answer a leader with the same bytes.
// Every error reaches the client through [rpcerr.ToStatus].
//
// # Observability
//
// Each call produces one report that feeds both the one-line call log and
// the domain metrics, both built to cost little per call. [NewTelemetry]
// builds the Prometheus-backed meter provider and the optional OTLP tracer
// provider that cmd/assignd wires in.
package server
