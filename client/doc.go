// Package client is the Go client of the assignd gRPC API
// (assignd.v1.AssignmentService).
//
// A Client is built from a gRPC target, usually "dns:///assignd.example:7070":
// the DNS resolver returns every replica and the client balances calls over
// them round robin, retries calls that fail with UNAVAILABLE (a replica went
// away; Assign is pure, so a retry is always safe) and checks the replicas'
// grpc.health.v1 status, so that a replica draining for shutdown stops
// receiving calls before it closes. Every call is bounded by the client's
// timeout unless the caller's context ends sooner. The client accepts
// responses up to [DefaultMaxResponseBytes] (512 MiB), enough for the
// largest group an assignd with default limits serves.
//
// Consumer-group leaders written with franz-go do not call the API
// directly: they pass a balancer from the kgoassign subpackage to
// kgo.Balancers, which speaks the standard protocol names, sends the
// leader's view of the group to assignd and falls back to the same engine
// in-process when assignd cannot answer in time.
package client
