// Package assign computes Kafka consumer-group partition assignments.
//
// It is the one code path that the assignd server, the client shim's local
// fallback and the benchmarks all run. The package is pure: plain Go types in,
// plain Go types out, no I/O, no clocks, no logging and no state kept between
// calls. The same Group, with its members in any order, always gives the same
// Result.
//
// An Assignor computes a target plan; Run wraps every assignor the same way:
// it validates and normalises the group, resolves conflicting ownership
// claims, asks the assignor for its plan and, when the group runs the
// COOPERATIVE protocol, applies the KIP-429 adjustment as a separate post-pass
// (see cooperative.go), so every assignor is cooperative-safe in the same way.
//
// Every partition that changes owner, is withheld or is held back gets one
// [MoveReason], recorded at the step that decides its target (claims, keep,
// place, repair, trim, freeze and move cap, withhold; see docs/engine.md),
// never worked out afterwards. [Stats] counts them by reason on every run;
// [WithMoveDetail] lists them as [Result].Moves.
//
// The Kafka consumer-protocol codec (ConsumerProtocolSubscription,
// ConsumerProtocolAssignment and the sticky assignors' user data) lives in the
// sub-package wire.
package assign
