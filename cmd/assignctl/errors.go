package main

import (
	"fmt"
	"io"
	"sort"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/status"
)

// printError shows a failed call: the gRPC code and message, then the
// structured details assignd attaches (field violations, reason). cmd is
// the command's path, e.g. "assignctl policy explain".
func printError(w io.Writer, cmd string, err error) {
	st, ok := status.FromError(err)
	if !ok {
		fmt.Fprintf(w, "%s: %v\n", cmd, err)
		return
	}
	fmt.Fprintf(w, "%s: %s: %s\n", cmd, st.Code(), st.Message())
	for _, d := range st.Details() {
		switch d := d.(type) {
		case *errdetails.BadRequest:
			for _, v := range d.GetFieldViolations() {
				fmt.Fprintf(w, "  field %s: %s\n", v.GetField(), v.GetDescription())
			}
		case *errdetails.ErrorInfo:
			fmt.Fprintf(w, "  reason %s (domain %s)", d.GetReason(), d.GetDomain())
			keys := make([]string, 0, len(d.GetMetadata()))
			for k := range d.GetMetadata() {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(w, " %s=%q", k, d.GetMetadata()[k])
			}
			fmt.Fprintln(w)
		}
	}
}
