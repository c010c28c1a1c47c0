package request

import (
	"fmt"
	"strings"

	"github.com/assignd/assignd/assign"
	"github.com/assignd/assignd/assign/share"
	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// DefaultShareAssignor is the share assignor an AssignShare call without
// one runs.
var DefaultShareAssignor = share.Sticky()

// ShareInput is an AssignShare request decoded into the share assignor's
// input.
type ShareInput struct {
	Group    *share.Group
	Assignor share.Assignor
}

// ShareAssignor resolves AssignShareRequest.assignor, "name@version" or
// "name" (version 1); "" is [DefaultShareAssignor].
func ShareAssignor(ref string) (share.Assignor, error) {
	if ref == "" {
		return DefaultShareAssignor, nil
	}
	return resolveRef(ref, "share", share.Lookup)
}

// SharePartitionCount is the number of partitions of the request's
// topics, a negative count counting as none.
func SharePartitionCount(req *assigndv1.AssignShareRequest) int64 {
	var n int64
	for _, t := range req.GetTopics() {
		n += int64(max(t.GetPartitionCount(), 0))
	}
	return n
}

// shareCounts are the request's subscriptions and current pairs.
func shareCounts(req *assigndv1.AssignShareRequest) (subs, current int64) {
	for _, m := range req.GetMembers() {
		subs += int64(len(m.GetTopics()))
		for _, tp := range m.GetCurrentPartitions() {
			current += int64(len(tp.GetPartitions()))
		}
	}
	return subs, current
}

// ShareLimits refuses, before admission, a request larger than the share
// assignor runs: more members than [share.MaxMembers], more partitions
// than [share.MaxPartitions], or more subscriptions and partitions than
// [share.MaxPairs]. It reads counts only.
func ShareLimits(req *assigndv1.AssignShareRequest) error {
	over := engineLimit("the share assignor's limit")
	if err := over("members", int64(len(req.GetMembers())), share.MaxMembers); err != nil {
		return err
	}
	parts := SharePartitionCount(req)
	if err := over("partitions", parts, share.MaxPartitions); err != nil {
		return err
	}
	subs, _ := shareCounts(req)
	return over("subscriptions and partitions", subs+parts, share.MaxPairs)
}

// Coefficients of [EstimateShareBytes], in bytes: a member's engine
// state and response message; a partition in the planner's per-topic
// tables; a subscription or current pair in the decoded group and the
// planner (a plan's pairs are at most the subscriptions and partitions);
// and the request's own bytes as decoding copies them (estimatePerRequestByte).
// Set above the partition path's per-entry costs, not yet measured per
// shape as those are.
const (
	estimateSharePerMember    = 512
	estimateSharePerPartition = 32
	estimateSharePerPair      = 48
)

// EstimateShareBytes is the memory one AssignShare call may take, from
// the request's counts: members, partitions, subscriptions, current
// pairs, and its size. reqBytes as in [EstimateBytes].
func EstimateShareBytes(req *assigndv1.AssignShareRequest, reqBytes int) int64 {
	parts := SharePartitionCount(req)
	subs, current := shareCounts(req)
	return estimateBase +
		estimateSharePerMember*int64(len(req.GetMembers())) +
		estimateSharePerPartition*parts +
		estimateSharePerPair*(subs+parts+current) +
		requestByteCost(req, reqBytes)
}

// DecodeShare converts an AssignShare request into the share assignor's
// input. It checks what the engine cannot see (the group type, the
// assignor, a current entry without a topic); ids, counts and partitions
// are the engine's to check ([share.Run]), and [ShareInput.EngineError]
// names their request fields.
func DecodeShare(req *assigndv1.AssignShareRequest) (*ShareInput, error) {
	if err := servesGroupType(req.GetGroupType(), assigndv1.GroupType_GROUP_TYPE_SHARE, "AssignShare serves share groups only"); err != nil {
		return nil, err
	}
	a, err := ShareAssignor(req.GetAssignor())
	if err != nil {
		return nil, err
	}
	if err := ShareLimits(req); err != nil {
		return nil, err
	}
	g := &share.Group{Topics: make([]share.Topic, len(req.GetTopics())), Members: make([]share.Member, len(req.GetMembers()))}
	for i, t := range req.GetTopics() {
		g.Topics[i] = share.Topic{Name: t.GetName(), Partitions: t.GetPartitionCount(), Unassignable: t.GetUnassignablePartitions()}
	}
	for i, m := range req.GetMembers() {
		sm := share.Member{ID: m.GetMemberId(), Topics: m.GetTopics()}
		if cur := m.GetCurrentPartitions(); len(cur) > 0 {
			sm.Current = make([]assign.TopicPartitions, len(cur))
			for j, tp := range cur {
				if tp.GetTopic() == "" {
					return nil, groupField(fmt.Sprintf("members[%d].current_partitions[%d].topic", i, j), sm.ID, "empty")
				}
				sm.Current[j] = assign.TopicPartitions{Topic: tp.GetTopic(), Partitions: tp.GetPartitions()}
			}
		}
		g.Members[i] = sm
	}
	return &ShareInput{Group: g, Assignor: a}, nil
}

// EngineError turns an error of [share.Run] on the input's group into an
// [rpcerr.FieldError] naming the request field: the member's index before
// a member's field, and the request's names of the topics' fields
// ("topics[i].partition_count", "topics[i].unassignable_partitions[j]").
// Other errors pass through.
func (in *ShareInput) EngineError(err error) error {
	return engineFieldError(err, "topics[", shareFieldNames, len(in.Group.Members), func(i int) string { return in.Group.Members[i].ID })
}

var shareFieldNames = strings.NewReplacer(".partitions", ".partition_count", ".unassignable[", ".unassignable_partitions[")
