// Package assigndv1 is the Go code generated from the public assignd v1
// API in proto/assignd/v1: the services of assignment.proto
// (AssignmentService), history.proto (GroupHistoryService), replay.proto
// (ReplayService) and rollout.proto (RolloutService), and the records
// replicas share on the history topic (history_log.proto, weights.proto).
// Beside the generated files stand the few hand-written helpers on its
// types (errors.go, verdict.go). Do not edit the *.pb.go files; change the
// .proto and run `make generate`.
package assigndv1
