package replay

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/assignd/assignd/assign"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/rpcerr"
	"github.com/assignd/assignd/server/selection"
)

// migrationMoveRatio is the share of a group's partitions moved at the
// switch above which the report advises caution.
const migrationMoveRatio = 0.2

// serverAssignorFor maps a classic protocol name to the broker's
// server-side assignor a group of it gets under KIP-848: range to range;
// roundrobin, sticky and cooperative-sticky to uniform (the broker's
// default, group.consumer.assignors). "" for another name.
func serverAssignorFor(protocolName string) string {
	switch protocolName {
	case "range":
		return assign.NameKIP848Range + "@1"
	case "roundrobin", "sticky", "cooperative-sticky":
		return assign.NameKIP848Uniform + "@1"
	}
	return ""
}

// MigrationReport answers, group by group, what the switch to the KIP-848
// protocol does. Today is the current policy's settled plan on the latest
// input; after is the server-side assignor run on the same input with
// today's plan as the previous assignment, as an online migration imports
// the classic group's assignment (KIP-848, "online migration"), under the
// COOPERATIVE protocol (the broker reconciles incrementally).
func (r *Service) MigrationReport(ctx context.Context, req *assigndv1.MigrationReportRequest) (*assigndv1.MigrationReportResponse, error) {
	if r.store == nil {
		return nil, errNoPreviewHistory
	}
	ids, next, total, err := r.page(req.GetGroupIdPrefix(), req.GetPageToken(), req.GetPageSize())
	if err != nil {
		return nil, err
	}
	resp := &assigndv1.MigrationReportResponse{NextPageToken: next, TotalGroups: int32(total)}
	for _, id := range ids {
		rp, err := r.latest(id)
		if err != nil {
			continue // forgotten since the page was listed
		}
		gm := r.migrateGroup(ctx, rp)
		if ctx.Err() != nil {
			return nil, rpcerr.ToStatus(rpcerr.CallEnded(ctx))
		}
		resp.Groups = append(resp.Groups, gm)
	}
	return resp, nil
}

func (r *Service) migrateGroup(ctx context.Context, rp *replay) *assigndv1.GroupMigration {
	name := rp.req.GetProtocolName()
	gm := &assigndv1.GroupMigration{GroupId: rp.group, ProtocolName: name, InputTime: timestamppb.New(rp.at), ServerAssignor: serverAssignorFor(name)}
	for _, m := range rp.g.Members {
		if len(m.UserData) > 0 {
			gm.UserData = true
		}
	}
	if name == "sticky" || name == "cooperative-sticky" {
		// Their subscriptions carry user data (the previous assignment,
		// the generation), even when a request's members leave it out.
		gm.UserData = true
	}
	blocked := func(format string, args ...any) *assigndv1.GroupMigration {
		gm.Verdict, gm.Reason = assigndv1.MigrationVerdict_MIGRATION_VERDICT_BLOCKED, fmt.Sprintf(format, args...)
		return gm
	}
	var today *assign.Result
	if r.explainer != nil {
		exp, err := r.explainer.ExplainPolicy(ctx, selection.Query{GroupID: rp.group, ProtocolName: name, Caller: r.caller(rp.group)})
		if err != nil {
			return blocked("the current policy does not serve it: %s", rpcerr.ClipMessage(err.Error()))
		}
		gm.CurrentAssignor = exp.Assignor
		a, err := lookupAssignor(exp.Assignor)
		if err != nil {
			return blocked("%v", err)
		}
		if _, today, gm.Today, err = r.outcome(ctx, rp, a, exp.Protocol, exp.Params.Options(), nil); err != nil {
			return blocked("replaying today's assignor failed: %s", rpcerr.ClipMessage(runError(err)))
		}
	}
	if gm.ServerAssignor == "" {
		return blocked("protocol %q is not a standard assignor: the broker has no server-side equivalent, and its user data and logic would be lost", rpcerr.Clip(name))
	}
	if today == nil {
		return blocked("no current policy to compute today's assignment")
	}
	a, err := lookupAssignor(gm.ServerAssignor)
	if err != nil {
		return blocked("%v", err)
	}
	g := *rp.g
	g.Protocol = assign.Cooperative
	sw := &replay{group: rp.group, at: rp.at, req: rp.req, g: &g, bytes: rp.bytes}
	if _, _, gm.After, err = r.outcome(ctx, sw, a, assign.Cooperative, nil, assignedOf(today)); err != nil {
		return blocked("%s failed on the group: %s", gm.ServerAssignor, rpcerr.ClipMessage(runError(err)))
	}
	gm.MovedAtSwitch = gm.After.GetMoved()
	gm.RackLocalityLost = max(0, gm.After.GetOffRack()-gm.Today.GetOffRack())
	gm.Verdict, gm.Reason = migrationVerdict(gm)
	return gm
}

// migrationVerdict advises on a group whose switch was computed.
func migrationVerdict(gm *assigndv1.GroupMigration) (assigndv1.MigrationVerdict, string) {
	var why []string
	after, today := gm.GetAfter(), gm.GetToday()
	if p := after.GetPartitions(); p > 0 && float64(gm.GetMovedAtSwitch()) > migrationMoveRatio*float64(p) {
		why = append(why, fmt.Sprintf("moves %d of %d partitions at the switch", gm.GetMovedAtSwitch(), p))
	}
	if gm.GetRackLocalityLost() > 0 {
		why = append(why, fmt.Sprintf("%d partitions lose rack locality (the broker's assignors are not rack-aware, KAFKA-16694)", gm.GetRackLocalityLost()))
	}
	if s := after.GetWorstTopicSkew(); s > max(today.GetWorstTopicSkew(), 1) {
		why = append(why, fmt.Sprintf("per-topic skew grows from %d to %d (%s)", today.GetWorstTopicSkew(), s, after.GetWorstTopic()))
	}
	if after.GetImbalance() > max(today.GetImbalance(), 1) {
		why = append(why, fmt.Sprintf("imbalance grows from %d to %d", today.GetImbalance(), after.GetImbalance()))
	}
	if len(why) > 0 {
		return assigndv1.MigrationVerdict_MIGRATION_VERDICT_CAUTION, strings.Join(why, "; ")
	}
	reason := fmt.Sprintf("moves %d partitions; balance and rack locality hold", gm.GetMovedAtSwitch())
	if gm.GetUserData() {
		reason += "; its user data is dropped, harmlessly (the broker keeps the previous assignment)"
	}
	return assigndv1.MigrationVerdict_MIGRATION_VERDICT_READY, reason
}
