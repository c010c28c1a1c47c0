// Package assigndv1 is the Go code generated from assignment.proto and
// history.proto, the public assignd v1 API: the AssignmentService and
// GroupHistoryService client and server interfaces and their messages. Do
// not edit the *.pb.go files; change the .proto and run `make generate`.
package assigndv1
