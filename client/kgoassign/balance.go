package kgoassign

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/client"
	"github.com/assignd/assignd/client/internal/leadercall"
	"github.com/assignd/assignd/internal/apiconv"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// balance runs one rebalance as group leader: assignd first, within the
// timeout, then the in-process engine.
func (b *Balancer) balance(cb *kgo.ConsumerBalancer, counts map[string]int32) (kgo.IntoSyncAssignment, error) {
	start := time.Now()
	in := b.input(cb, counts)
	rep := Report{
		BalanceReport: client.BalanceReport{Group: in.group, Protocol: b.name, Members: len(in.members), Partitions: in.partitions},
		Generation:    in.generation, Leader: in.leader,
	}
	defer func() {
		rep.Took = time.Since(start)
		b.lead.Done(b.name, rep.Source, rep.Reason, rep.Took)
		if b.cfg.observer != nil {
			b.cfg.observer(rep)
		}
	}()

	var callErr error
	if b.client != nil {
		out, followup, err := b.remote(in)
		if err == nil {
			rep.Source, rep.FollowupRequired, rep.Assignments = client.SourceService, followup, out.byMember()
			b.lead.Logger.Debug("kgoassign: balanced by assignd", b.attrs(&rep, start)...)
			return out, nil
		}
		callErr = err
	}
	diag := leadercall.Diagnose(callErr)
	rep.Reason, rep.Check, rep.Err = diag.Reason, diag.Check, callErr

	out, followup, err := b.local(in)
	if err != nil {
		rep.Source, rep.Err = client.SourceNone, err
		b.lead.Logger.Error("kgoassign: balancing failed in assignd and in-process; kgo retries the rebalance",
			append(b.attrs(&rep, start), "error", err)...)
		return nil, err
	}
	rep.Source, rep.FollowupRequired, rep.Assignments = client.SourceFallback, followup, out.byMember()
	leadercall.LogFallback(b.lead.Logger, "kgoassign", diag, callErr, b.attrs(&rep, start)...)
	return out, nil
}

// remote asks assignd, bounded by the balancer's and the client's timeout.
func (b *Balancer) remote(in *input) (syncAssignments, bool, error) {
	// The balancer API gives no context: this bound (always positive, see
	// WithTimeout) is what keeps a slow or hung assignd from stalling the
	// group, even when the client's own timeout is turned off.
	ctx, cancel := context.WithTimeout(context.Background(), b.cfg.Timeout)
	defer cancel()
	resp, err := b.client.Assign(ctx, in.request(b.name, b.protocol))
	if err != nil {
		return nil, false, fmt.Errorf("kgoassign: calling assignd: %w", err)
	}
	out, err := in.fromResponse(resp, b.protocol)
	if err != nil {
		return nil, false, err
	}
	return out, resp.GetFollowupRequired(), nil
}

// fromResponse checks that resp assigns every member of the group exactly
// once, under the protocol the group runs, and returns its assignment
// bytes untouched. A cooperative group given an eager plan could have a
// partition consumed twice, so that is refused too.
func (in *input) fromResponse(resp *assigndv1.AssignResponse, p assign.RebalanceProtocol) (syncAssignments, error) {
	if got, want := resp.GetRebalanceProtocol(), apiconv.ProtocolToAPI(p); got != want {
		return nil, fmt.Errorf("%w: it ran %s for a group running %s", leadercall.ErrInvalidResponse, got, want)
	}
	ids := make([]string, len(in.members))
	for i, m := range in.members {
		ids[i] = m.ID
	}
	check := leadercall.NewMemberCheck(ids)
	out := make(syncAssignments, 0, len(in.members))
	for _, a := range resp.GetAssignments() {
		id := a.GetMemberId()
		if err := check.Assigned(id); err != nil {
			return nil, err
		}
		if len(a.GetAssignment()) == 0 {
			return nil, fmt.Errorf("%w: member %q has no encoded assignment", leadercall.ErrInvalidResponse, id)
		}
		out = append(out, kmsg.SyncGroupRequestGroupAssignment{MemberID: id, MemberAssignment: a.GetAssignment()})
	}
	if err := check.Complete(); err != nil {
		return nil, err
	}
	return out, nil
}

func (b *Balancer) attrs(r *Report, start time.Time) []any {
	return []any{
		"group", r.Group, "generation", r.Generation, "protocol", b.name,
		"members", r.Members, "partitions", r.Partitions, "followup_required", r.FollowupRequired,
		"took", time.Since(start),
	}
}

func (s syncAssignments) byMember() map[string][]byte {
	m := make(map[string][]byte, len(s))
	for _, a := range s {
		m[a.MemberID] = a.MemberAssignment
	}
	return m
}
