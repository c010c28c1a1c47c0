package server

import (
	"context"

	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/logging"

	"github.com/assignd/assignd/assign"
)

// callReport is what one Assign call did, filled in by the handler as it
// learns it and read after the handler returns by the report interceptor
// (domain metrics) and the logging interceptor (the call's log line). Only
// the handler's goroutine writes it, before those readers run.
type callReport struct {
	group    string
	assignor string // "name@version"
	protocol string // rebalance protocol, e.g. "COOPERATIVE"
	policy   string

	members, partitions     int
	moved, revoked, pending int
	followup                bool
	warnings                int
	ok                      bool // an assignment was computed and returned
}

type reportKey struct{}

func withReport(ctx context.Context) (context.Context, *callReport) {
	r := &callReport{}
	return context.WithValue(ctx, reportKey{}, r), r
}

// reportFrom returns the call's report, or a throwaway one when the call
// has none (a handler invoked without the interceptor chain, as in unit
// tests).
func reportFrom(ctx context.Context) *callReport {
	if r, ok := ctx.Value(reportKey{}).(*callReport); ok {
		return r
	}
	return &callReport{}
}

// setResult records the outcome of a successful assignment.
func (r *callReport) setResult(res *assign.Result) {
	r.ok = true
	r.members = len(res.Members)
	r.partitions = res.Stats.Partitions
	r.moved = res.Stats.Moved
	r.revoked = res.Stats.Revoked
	r.pending = res.Stats.Pending
	r.followup = res.FollowupRequired
	r.warnings = len(res.Warnings)
}

// logFields are the domain fields of the call's log line. Nothing from the
// payload beyond the group id and counts is logged.
func logFields(ctx context.Context) logging.Fields {
	r, ok := ctx.Value(reportKey{}).(*callReport)
	if !ok || r.group == "" && r.assignor == "" {
		return nil
	}
	f := logging.Fields{"group", r.group}
	if r.assignor != "" {
		f = append(f, "assignor", r.assignor, "protocol", r.protocol, "policy", r.policy)
	}
	f = append(f, "members", r.members)
	if r.ok {
		f = append(f, "partitions", r.partitions, "moved", r.moved, "revoked", r.revoked,
			"pending", r.pending, "followup", r.followup, "warnings", r.warnings)
	}
	return f
}
