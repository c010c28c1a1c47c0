// Package request is the one decoder of an AssignRequest into the
// engine's input ([assign.Group]): the live Assign call and every replay
// of a recorded one (policy preview, simulation, migration report) read a
// request through it, so that a replay plans exactly what the call did.
//
// Decoding comes in two steps, because Assign admits a call between them:
// [ReadHeader] checks what costs nothing to check (protocol name and
// rebalance protocol, view, listed moves, size limits); [Decode] converts
// the topics, weights and members, which costs as much as the request is
// large. Every error is an [rpcerr.FieldError] naming the request field
// (and member) at fault, or an [rpcerr.LimitError]; [Input.EngineError]
// renames the engine's own validation errors to the request's fields.
//
// Raw ConsumerProtocolSubscription bytes are decoded by [leader.Decode],
// the codec the client shims' local fallback uses too, so that the
// service and a fallback read the same bytes the same way.
package request
