package server

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/server/rpcerr"
)

// callReport is what one Assign call did, filled in by the handler as it
// learns it and read after the handler returns by the report interceptor
// (domain metrics) and the logging interceptor (the call's log line). Only
// the handler's goroutine writes it, before those readers run, and nobody
// writes it afterwards, so a log handler may read it later.
type callReport struct {
	group    string
	assignor assign.Assignor
	// groupType is "streams" for AssignTasks, "share" for AssignShare, ""
	// (a consumer group) for Assign; taskAssignor is the task or share
	// assignor that ran, as name@version. For a share group, moved counts
	// the pairs removed.
	groupType, taskAssignor string
	protocol                string // rebalance protocol, e.g. "COOPERATIVE"
	policy                  string
	// binding is the policy binding that allowed the caller, if any.
	binding string
	// rolloutStep and rolloutStarted name the staged rollout step that
	// admitted the group (selection.Selection.RolloutStep, RolloutStarted).
	rolloutStep    int
	rolloutStarted time.Time

	members, partitions     int
	moved, revoked, pending int
	reasons                 assign.ReasonCounts
	followup                bool
	warnings                int
	ok                      bool // an assignment was computed and returned

	// decision is what the call's Decision is built from, nil unless an
	// assignment was computed and the server keeps a history.
	decision *decisionInput
	// taskDecision and shareDecision are the same for an AssignTasks and
	// an AssignShare call.
	taskDecision  *taskDecisionInput
	shareDecision *shareDecisionInput
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

// begin records what the request says of the group before anything can
// reject it, so that a rejected call's log line names the group too.
func (r *callReport) begin(group string, members int, groupType string) *callReport {
	r.group, r.members, r.groupType = group, members, groupType
	return r
}

// setResult records the outcome of a successful assignment.
func (r *callReport) setResult(res *assign.Result) {
	r.ok = true
	r.members = len(res.Members)
	r.partitions = res.Stats.Partitions
	r.moved = res.Stats.Moved
	r.reasons = res.Stats.Reasons
	r.revoked = res.Stats.Revoked
	r.pending = res.Stats.Pending
	r.followup = res.FollowupRequired
	r.warnings = len(res.Warnings)
}

// appendAttrs appends the domain fields of the call's log line. Nothing
// from the payload beyond the group id and counts is logged.
func (r *callReport) appendAttrs(attrs []slog.Attr) []slog.Attr {
	if r.group == "" && r.assignor == nil {
		return attrs
	}
	// The group id is the caller's: clipped like every caller-supplied
	// string in logs.
	attrs = append(attrs, slog.String("group", rpcerr.Clip(r.group)))
	if r.assignor != nil {
		attrs = append(attrs, slog.String("assignor", ref(r.assignor)), slog.String("protocol", r.protocol), slog.String("policy", r.policy))
	}
	if r.groupType != "" {
		attrs = append(attrs, slog.String("group_type", r.groupType))
	}
	if r.taskAssignor != "" {
		attrs = append(attrs, slog.String("assignor", r.taskAssignor))
	}
	attrs = append(attrs, slog.Int("members", r.members))
	if r.ok && r.groupType == "share" {
		attrs = append(attrs, slog.Int("removed", r.moved), slog.Int("warnings", r.warnings))
	} else if r.ok && r.groupType != "" {
		attrs = append(attrs, slog.Int("moved", r.moved), slog.Bool("followup", r.followup), slog.Int("warnings", r.warnings))
	} else if r.ok {
		attrs = append(attrs, slog.Int("partitions", r.partitions), slog.Int("moved", r.moved), slog.Int("revoked", r.revoked),
			slog.Int("pending", r.pending), slog.Bool("followup", r.followup), slog.Int("warnings", r.warnings))
		if by := r.reasonAttrs(); by != nil {
			attrs = append(attrs, slog.Attr{Key: "moved_by", Value: slog.GroupValue(by...)})
		}
	}
	return attrs
}

// reasonAttrs lists the non-zero counts by move reason, e.g. balance=3,
// or nil when nothing moved.
func (r *callReport) reasonAttrs() []slog.Attr {
	var by []slog.Attr
	for reason, n := range r.reasons {
		if n > 0 {
			by = append(by, slog.Int(assign.MoveReason(reason).String(), n))
		}
	}
	return by
}

// refs caches assign.Ref, which formats, per assignor name and version.
var refs sync.Map // assignorKey → string

type assignorKey struct {
	name    string
	version int
}

func ref(a assign.Assignor) string {
	k := assignorKey{a.Name(), a.Version()}
	if s, ok := refs.Load(k); ok {
		return s.(string)
	}
	s := assign.Ref(a)
	refs.Store(k, s)
	return s
}
