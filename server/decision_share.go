package server

import (
	"context"
	"slices"
	"time"

	"github.com/assignd/assignd/assign/share"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
	"github.com/assignd/assignd/server/history"
	"github.com/assignd/assignd/server/selection"
)

// shareDecisionInput is what an answered AssignShare call leaves for its
// Decision: references, read once the response is written.
type shareDecisionInput struct {
	call  groupCall
	group *share.Group
	res   *share.Result
}

// noteShareDecision keeps what the call's Decision is built from.
func (r *callReport) noteShareDecision(ctx context.Context, req *assigndv1.AssignShareRequest, g *share.Group, res *share.Result, engine time.Duration, caller selection.Caller) {
	r.shareDecision = &shareDecisionInput{
		call: groupCall{at: time.Now(), req: req, groupID: req.GetGroupId(), groupType: assigndv1.GroupType_GROUP_TYPE_SHARE,
			assignor: res.Assignor, engine: engine, caller: caller, userAgent: userAgent(ctx)},
		group: g, res: res,
	}
}

// buildShareDecision is the record of a share group's call (Decision
// fields 90 to 99).
func (r *callReport) buildShareDecision(callTime time.Duration) *assigndv1.Decision {
	in := r.shareDecision
	res := in.res
	d := r.groupDecision(in.call, callTime)
	d.MemberCount = int32(len(res.Assignments))
	d.Partitions = int32(assignablePartitions(in.group))
	d.SharePairs, d.ShareAdded, d.ShareRemoved = int32(res.Stats.Pairs), int32(res.Stats.Added), int32(res.Stats.Removed)
	d.Members, d.Imbalance = shareDecisionMembers(in.group, res, decisionMembers)
	d.Warnings = clippedWarnings(res.Warnings)
	return d
}

// assignablePartitions counts the partitions the plan could give: those
// of the topics in the metadata, less the unassignable ones.
func assignablePartitions(g *share.Group) int {
	n := 0
	for _, t := range g.Topics {
		n += max(int(t.Partitions)-len(t.Unassignable), 0)
	}
	return n
}

// shareDecisionMembers lists the first members by id with their current
// and planned partition counts, and the spread of planned partitions over
// all of them.
func shareDecisionMembers(g *share.Group, res *share.Result, limit int) (members []*assigndv1.DecisionMember, imbalance int32) {
	current := make(map[string]int, len(g.Members))
	for _, m := range g.Members {
		current[m.ID] = history.CountPartitions(m.Current)
	}
	lo, hi := -1, 0
	members = make([]*assigndv1.DecisionMember, 0, min(len(res.Assignments), limit))
	for i, a := range res.Assignments { // sorted by member id
		n := history.CountPartitions(a.Partitions)
		if lo < 0 || n < lo {
			lo = n
		}
		hi = max(hi, n)
		if i < limit {
			members = append(members, &assigndv1.DecisionMember{MemberId: a.Member, Owned: int32(current[a.Member]), Assigned: int32(n)})
		}
	}
	if lo >= 0 {
		imbalance = int32(hi - lo)
	}
	return slices.Clip(members), imbalance
}
