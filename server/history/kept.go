package history

import (
	"google.golang.org/protobuf/proto"

	assigndv1 "github.com/assignd/assignd/proto/assignd/v1"
)

// kept is one record as a Store holds it: the whole record marshaled,
// and a summary of it, the record without its lists and its messages
// other than timestamps, which is what the signals, List's filters, the
// rings' order and duplicate detection read. A Store holds records for
// the process's life, tens of thousands of them: as Go messages each is
// a tree of a hundred objects (members, moves, partitions, their
// strings) that every garbage collection traces again, and under a
// rebalance storm that tracing took a third of the CPU. Marshaled, the
// whole record is one allocation without pointers, which the collector
// does not scan, and a third of the heap; the readers that need all of
// it ([Store.Get], [Store.Shadows], [Store.RuleGroups]) decode it, as
// rarely as an operator or a rollout's gate asks.
type kept struct {
	sum  *assigndv1.Decision
	wire []byte
	// whole is the record itself when it could not be marshaled (a
	// string that is not UTF-8), nil otherwise.
	whole *assigndv1.Decision
}

// keep makes d's kept form. d must not be modified afterwards: its
// summary shares d's strings and timestamps.
func keep(d *assigndv1.Decision) kept {
	k := kept{sum: summarize(d)}
	wire, err := proto.Marshal(d)
	if err != nil {
		k.whole = d
		return k
	}
	k.wire = wire
	return k
}

// summarize is d without its lists and its messages other than
// timestamps. It names the fields (reflection would take a fifth of a
// call's recording); TestSummaryKeepsEveryScalar fails when one is
// missing.
func summarize(d *assigndv1.Decision) *assigndv1.Decision {
	return &assigndv1.Decision{
		Time: d.Time, GroupId: d.GroupId, GenerationId: d.GenerationId, LeaderId: d.LeaderId, ProtocolName: d.ProtocolName,
		RebalanceProtocol: d.RebalanceProtocol, Assignor: d.Assignor, PolicyRule: d.PolicyRule, PolicyRevision: d.PolicyRevision,
		MemberCount: d.MemberCount, Partitions: d.Partitions, Moved: d.Moved, Withheld: d.Withheld, Revoked: d.Revoked,
		Imbalance: d.Imbalance, FollowupRequired: d.FollowupRequired, UserAgent: d.UserAgent, InputDigest: d.InputDigest,
		Replica: d.Replica, Incarnation: d.Incarnation, Sequence: d.Sequence, Shadow: d.Shadow,
		WorstTopicImbalance: d.WorstTopicImbalance, WorstImbalanceTopic: d.WorstImbalanceTopic, CallerBinding: d.CallerBinding,
		WeightSource: d.WeightSource, WeightSnapshot: d.WeightSnapshot, LoadSnapshot: d.LoadSnapshot,
		RolloutStep: d.RolloutStep, RolloutStarted: d.RolloutStarted, GroupType: d.GroupType, Tasks: d.Tasks,
		StandbyTasks: d.StandbyTasks, WarmupTasks: d.WarmupTasks, ActiveMoved: d.ActiveMoved, StandbyMoved: d.StandbyMoved,
		Processes: d.Processes, SharePairs: d.SharePairs, ShareAdded: d.ShareAdded, ShareRemoved: d.ShareRemoved,
	}
}

// full is the whole record, decoded anew for each reader.
func (k kept) full() *assigndv1.Decision {
	if k.wire == nil {
		return k.whole
	}
	d := new(assigndv1.Decision)
	if err := proto.Unmarshal(k.wire, d); err != nil {
		// It was marshaled from a valid record by this process: a
		// failure here is a bug, and the summary is all there is.
		return k.sum
	}
	return d
}

// size is the heap k holds, as the byte bound counts it.
func (k kept) size() int64 {
	if k.sum == nil {
		return 0
	}
	return decisionSize(k.sum) + sliceHeap(k.wire) + decisionSize(k.whole)
}

// fulls decodes ks (see [kept.full]).
func fulls(ks []kept) []*assigndv1.Decision {
	if ks == nil {
		return nil
	}
	ds := make([]*assigndv1.Decision, len(ks))
	for i, k := range ks {
		ds[i] = k.full()
	}
	return ds
}

// sums is ks's summaries.
func sums(ks []kept) []*assigndv1.Decision {
	ds := make([]*assigndv1.Decision, len(ks))
	for i, k := range ks {
		ds[i] = k.sum
	}
	return ds
}
